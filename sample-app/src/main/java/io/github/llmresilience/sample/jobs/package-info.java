/**
 * A job queue whose workers requeue what cannot be served now.
 */
@NullMarked
package io.github.llmresilience.sample.jobs;

import org.jspecify.annotations.NullMarked;
