/**
 * OpenAI and the APIs shaped like it (Azure OpenAI, Mistral, OpenAI-compatible servers):
 * error bodies, wait-hint and capacity headers, usage fields, the canary request and the
 * chat-completions stream.
 */
@NullMarked
package io.github.llmresilience.classify.vendor.openai;

import org.jspecify.annotations.NullMarked;
