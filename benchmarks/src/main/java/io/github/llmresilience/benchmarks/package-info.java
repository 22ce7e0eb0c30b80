/**
 * JMH benchmarks of llm-resilience against bare Resilience4j.
 */
@NullMarked
package io.github.llmresilience.benchmarks;

import org.jspecify.annotations.NullMarked;
