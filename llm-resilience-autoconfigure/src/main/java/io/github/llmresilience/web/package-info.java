/**
 * Adapters for Spring's own HTTP clients: a {@code WebClient} filter and a
 * {@code RestClient} interceptor.
 */
@NullMarked
package io.github.llmresilience.web;

import org.jspecify.annotations.NullMarked;
