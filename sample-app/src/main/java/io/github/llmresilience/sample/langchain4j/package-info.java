/**
 * The application's own LangChain4j models, which chains protect
 * ({@code lc4j-chat-model}).
 */
@NullMarked
package io.github.llmresilience.sample.langchain4j;

import org.jspecify.annotations.NullMarked;
