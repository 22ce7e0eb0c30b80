/**
 * A read-only snapshot of every target, chain, failure domain, quota scope and account,
 * and the operator's commands.
 */
@NullMarked
package io.github.llmresilience.state;

import org.jspecify.annotations.NullMarked;
