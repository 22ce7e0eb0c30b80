/**
 * A client for the providers the sample speaks.
 */
@NullMarked
package io.github.llmresilience.sample.provider;

import org.jspecify.annotations.NullMarked;
