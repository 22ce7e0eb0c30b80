/**
 * Calls through a chain of targets: the facade, its builder and options, the attempt a
 * call function gets, and the exceptions a caller sees.
 */
@NullMarked
package io.github.llmresilience.execute;

import org.jspecify.annotations.NullMarked;
