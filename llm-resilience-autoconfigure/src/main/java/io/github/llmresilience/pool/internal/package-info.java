/**
 * The partition of each quota scope into pools (Bucket4j buckets) and the queue of calls
 * waiting for a release: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.pool.internal;

import org.jspecify.annotations.NullMarked;
