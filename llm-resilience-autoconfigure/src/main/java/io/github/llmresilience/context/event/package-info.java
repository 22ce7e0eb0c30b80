/**
 * State changes as Spring application events.
 */
@NullMarked
package io.github.llmresilience.context.event;

import org.jspecify.annotations.NullMarked;
