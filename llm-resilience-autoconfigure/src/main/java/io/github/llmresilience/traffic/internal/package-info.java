/**
 * What each target did second by second over the last minutes, kept in memory for the
 * status page.
 */
@NullMarked
package io.github.llmresilience.traffic.internal;

import org.jspecify.annotations.NullMarked;
