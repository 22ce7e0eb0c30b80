/**
 * The spend windows of each failure domain and their judgement: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.spend.internal;

import org.jspecify.annotations.NullMarked;
