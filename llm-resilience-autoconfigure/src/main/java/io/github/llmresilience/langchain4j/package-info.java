/**
 * LangChain4j: a {@link dev.langchain4j.model.chat.ChatModel} and a
 * {@link dev.langchain4j.model.chat.StreamingChatModel} that serve each call through a
 * chain of the application's own LangChain4j models, and the retries of those models
 * turned off so that llm-resilience alone decides when to try again.
 */
@NullMarked
package io.github.llmresilience.langchain4j;

import org.jspecify.annotations.NullMarked;
