/**
 * docs/operations.md's secured operator console: Spring Security's rules for the
 * {@code llmresilience} endpoint, its writes and the status page.
 */
@NullMarked
package io.github.llmresilience.example.console;

import org.jspecify.annotations.NullMarked;
