/**
 * Server-sent event decoders for streamed answers, OpenAI's and Anthropic's.
 */
@NullMarked
package io.github.llmresilience.web.stream;

import org.jspecify.annotations.NullMarked;
