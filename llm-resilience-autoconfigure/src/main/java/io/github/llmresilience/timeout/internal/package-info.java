/**
 * Latency records, measured timeouts and the coalescing timer: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.timeout.internal;

import org.jspecify.annotations.NullMarked;
