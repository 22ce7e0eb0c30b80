/**
 * Answers through a chain, over HTTP.
 */
@NullMarked
package io.github.llmresilience.sample.answers;

import org.jspecify.annotations.NullMarked;
