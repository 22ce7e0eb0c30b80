/**
 * What an answer cost: the tokens a provider reports it read and wrote.
 */
@NullMarked
package io.github.llmresilience.usage;

import org.jspecify.annotations.NullMarked;
