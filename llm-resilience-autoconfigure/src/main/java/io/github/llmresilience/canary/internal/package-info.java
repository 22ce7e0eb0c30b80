/**
 * Canaries: the trial runner, the built-in prompt sender on the JDK's HTTP client and the
 * judgements. Mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.canary.internal;

import org.jspecify.annotations.NullMarked;
