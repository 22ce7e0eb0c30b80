/**
 * From an exception to the provider's answer it carries: extractors for transports and
 * vendor SDKs.
 */
@NullMarked
package io.github.llmresilience.extract;

import org.jspecify.annotations.NullMarked;
