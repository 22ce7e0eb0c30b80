/**
 * Cohere: error bodies and usage fields.
 */
@NullMarked
package io.github.llmresilience.classify.vendor.cohere;

import org.jspecify.annotations.NullMarked;
