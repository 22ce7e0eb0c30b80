/**
 * The sample application: an answers service on llm-resilience, with a provider
 * simulator.
 */
@NullMarked
package io.github.llmresilience.sample;

import org.jspecify.annotations.NullMarked;
