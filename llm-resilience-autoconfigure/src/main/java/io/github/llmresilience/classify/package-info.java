/**
 * What a provider's answer says: the verdict, its outcome and wait hint, and the
 * classifiers that give it.
 */
@NullMarked
package io.github.llmresilience.classify;

import org.jspecify.annotations.NullMarked;
