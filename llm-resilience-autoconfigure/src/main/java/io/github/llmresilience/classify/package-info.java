/**
 * What a provider's answer says: the verdict, its outcome and wait hint, and the
 * classifiers that give it.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link RecentUnclassified}, {@link RuleClassifier},
 * {@link UnclassifiedListeners}.
 */
@NullMarked
package io.github.llmresilience.classify;

import org.jspecify.annotations.NullMarked;
