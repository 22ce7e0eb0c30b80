/**
 * Reading token usage from the vendors' answers and stream events.
 */
@NullMarked
package io.github.llmresilience.usage.internal;

import org.jspecify.annotations.NullMarked;
