/**
 * Auto-configuration of llm-resilience from {@code llm.resilience.*}: the thin Spring
 * layer over the core.
 */
@NullMarked
package io.github.llmresilience.autoconfigure;

import org.jspecify.annotations.NullMarked;
