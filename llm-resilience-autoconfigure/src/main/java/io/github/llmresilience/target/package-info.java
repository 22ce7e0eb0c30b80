/**
 * Targets (a provider, model, region and account behind one name) and their keys.
 */
@NullMarked
package io.github.llmresilience.target;

import org.jspecify.annotations.NullMarked;
