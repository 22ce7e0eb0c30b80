/**
 * Amazon Bedrock Runtime: error types, usage fields and headers.
 */
@NullMarked
package io.github.llmresilience.classify.vendor.bedrock;

import org.jspecify.annotations.NullMarked;
