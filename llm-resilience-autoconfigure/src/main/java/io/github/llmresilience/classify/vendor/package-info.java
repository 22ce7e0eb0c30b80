/**
 * What this library knows of each LLM vendor, one folder per vendor: the contract a
 * vendor implements ({@link io.github.llmresilience.classify.vendor.Vendor}), the
 * registration list ({@link io.github.llmresilience.classify.vendor.Vendors}), and the
 * readers vendors share (the classifier frame, the bounded JSON reader, wait hints). For
 * vendor authors, not applications.
 */
@NullMarked
package io.github.llmresilience.classify.vendor;

import org.jspecify.annotations.NullMarked;
