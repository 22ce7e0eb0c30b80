/**
 * The user's classification rules in front of a vendor's classifier, the listeners told
 * of unclassified answers, and the recent ones: mechanisms, not API. The vendors' own
 * classifiers are in {@code classify.vendor}.
 */
@NullMarked
package io.github.llmresilience.classify.internal;

import org.jspecify.annotations.NullMarked;
