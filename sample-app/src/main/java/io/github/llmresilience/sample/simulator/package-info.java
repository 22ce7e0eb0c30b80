/**
 * An embedded simulator of provider APIs, their failures and their error formats.
 */
@NullMarked
package io.github.llmresilience.sample.simulator;

import org.jspecify.annotations.NullMarked;
