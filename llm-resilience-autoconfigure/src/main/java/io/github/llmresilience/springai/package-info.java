/**
 * Spring AI: a {@link org.springframework.ai.chat.model.ChatModel} that serves each call
 * through a chain of the application's own chat models, and the SDK retries under them
 * turned off so that llm-resilience alone decides when to try again.
 */
@NullMarked
package io.github.llmresilience.springai;

import org.jspecify.annotations.NullMarked;
