/**
 * The registry of targets and chains: a mechanism, not API.
 */
@NullMarked
package io.github.llmresilience.target.internal;

import org.jspecify.annotations.NullMarked;
