package io.github.llmresilience.classify.vendor;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import org.jspecify.annotations.Nullable;

/**
 * Everything this library knows of one provider id: how its answers are classified, the
 * headers in which it states a wait and its capacity, where it reports token usage, how
 * the built-in canary asks it a question, and how its event stream is decoded. The
 * concerns (classification, wait hints, quota pools, usage, canary, streams) ask the
 * {@link Vendors registered} vendors instead of naming providers themselves.
 *
 * <p>
 * A vendor lives in its own folder ({@code classify.vendor.<name>}), with one public
 * entry that holds its {@code Vendor}s, and is added to {@link Vendors#REGISTERED}. Only
 * the classifier is required; a part a vendor does not have keeps its default.
 */
public interface Vendor {

	/**
	 * The provider id a target names ({@code openai}, {@code azure-openai}, ...), in
	 * lower case.
	 */
	String id();

	/**
	 * A new classifier of this vendor's answers.
	 * @param settings clock, quota threshold and unclassified listener
	 * @return the classifier, whose {@link ProviderErrorClassifier#provider()} is
	 * {@link #id()}
	 */
	ProviderErrorClassifier classifier(ClassifierSettings settings);

	/**
	 * The headers in which the vendor states how long to wait. Read on every answer,
	 * whichever vendor sent it: gateways and proxies pass another vendor's headers on.
	 */
	default WaitHeaders waitHeaders() {
		return WaitHeaders.NONE;
	}

	/**
	 * The headers in which the vendor states a quota scope's capacity, or {@code null}
	 * when it states none. Read on every answer, as {@link #waitHeaders()} are.
	 */
	default @Nullable LimitHeaders limitHeaders() {
		return null;
	}

	/** Where the vendor reports the tokens an answer used. */
	default UsageFields usageFields() {
		return UsageFields.NONE;
	}

	/**
	 * How the built-in canary asks this vendor one question, or {@code null} when it
	 * cannot (the application then defines a canary probe of its own).
	 */
	default @Nullable CanaryFormat canaryFormat() {
		return null;
	}

	/** How the vendor's event stream is decoded into text, or {@code null}. */
	default @Nullable StreamDecoder streamDecoder() {
		return null;
	}

}
