/**
 * Gates of quota scopes, parks and locks of accounts: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.throttle.internal;

import org.jspecify.annotations.NullMarked;
