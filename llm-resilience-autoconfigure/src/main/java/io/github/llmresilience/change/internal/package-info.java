/**
 * Publishing state changes once each, and the recent list: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.change.internal;

import org.jspecify.annotations.NullMarked;
