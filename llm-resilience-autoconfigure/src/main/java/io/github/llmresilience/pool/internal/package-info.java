/**
 * Reading a quota scope's capacity from the provider's headers: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.pool.internal;

import org.jspecify.annotations.NullMarked;
