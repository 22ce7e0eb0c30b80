/**
 * Anthropic's Messages API: error bodies, wait-hint and capacity headers, usage fields,
 * the canary request and the messages stream.
 */
@NullMarked
package io.github.llmresilience.classify.vendor.anthropic;

import org.jspecify.annotations.NullMarked;
