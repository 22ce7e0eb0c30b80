/**
 * State changes: what changed, when and until when, and the listeners told about each
 * one.
 */
@NullMarked
package io.github.llmresilience.change;

import org.jspecify.annotations.NullMarked;
