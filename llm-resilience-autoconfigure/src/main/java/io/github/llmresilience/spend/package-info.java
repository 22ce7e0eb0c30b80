/**
 * The spend trigger: what answers cost (tokens, or money at a target's price) per failure
 * domain, judged per window against the domain's own trailing median. Its settings and
 * prices; the windows and the judgement are in {@code spend.internal}.
 */
@NullMarked
package io.github.llmresilience.spend;

import org.jspecify.annotations.NullMarked;
