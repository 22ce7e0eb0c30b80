/**
 * The built-in classifiers of each provider's error format and the readers they use:
 * mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.classify.internal;

import org.jspecify.annotations.NullMarked;
