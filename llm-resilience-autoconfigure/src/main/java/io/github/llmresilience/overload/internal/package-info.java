/**
 * The marks of overloaded providers: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.overload.internal;

import org.jspecify.annotations.NullMarked;
