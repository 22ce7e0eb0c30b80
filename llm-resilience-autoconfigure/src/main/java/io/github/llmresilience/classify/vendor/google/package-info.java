/**
 * Google's Gemini API and Vertex AI: error bodies, usage fields and the canary request.
 */
@NullMarked
package io.github.llmresilience.classify.vendor.google;

import org.jspecify.annotations.NullMarked;
