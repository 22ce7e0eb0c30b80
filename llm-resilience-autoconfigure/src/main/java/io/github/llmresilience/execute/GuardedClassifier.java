package io.github.llmresilience.execute;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.Verdict;

/**
 * A classifier as the engine calls it: an application's own classifier bean may throw or
 * return {@code null}, and a breaker permit is held while it runs. Its failure must not
 * take the call, or the permit, with it: the answer is read by its status alone and
 * reported as unclassified, so that the broken classifier shows on the meter.
 */
final class GuardedClassifier implements ProviderErrorClassifier {

	/** The error type reported when a classifier failed. */
	static final String CLASSIFIER_ERROR = "classifier_error";

	private final ProviderErrorClassifier delegate;

	private final UnclassifiedListener unclassified;

	GuardedClassifier(ProviderErrorClassifier delegate, UnclassifiedListener unclassified) {
		this.delegate = delegate;
		this.unclassified = unclassified;
	}

	@Override
	public String provider() {
		return this.delegate.provider();
	}

	@Override
	public Verdict classify(ProviderResponse response) {
		Verdict verdict;
		try {
			verdict = this.delegate.classify(response);
		}
		catch (VirtualMachineError fatal) {
			throw fatal;
		}
		catch (Throwable ex) {
			verdict = null;
		}
		if (verdict != null) {
			return verdict;
		}
		this.unclassified.unclassified(provider(), response.status(), CLASSIFIER_ERROR);
		return statusOnly(response).withRule(Verdict.DEFAULT);
	}

	/**
	 * What the answer's kind and status alone say, as the design's default rule reads
	 * them.
	 */
	static Verdict statusOnly(ProviderResponse response) {
		return switch (response.kind()) {
			case TIMEOUT -> Verdict.of(Outcome.AVAILABILITY, null, "timeout");
			case CONNECTION_FAILURE -> Verdict.of(Outcome.AVAILABILITY, null, "connection");
			case STREAM_EVENT -> Verdict.of(Outcome.AVAILABILITY, null, CLASSIFIER_ERROR);
			default -> Verdict.of(outcomeOf(response.status()), null, CLASSIFIER_ERROR);
		};
	}

	private static Outcome outcomeOf(int status) {
		if (status >= 200 && status < 300) {
			return Outcome.SUCCESS;
		}
		if (status == 401 || status == 403) {
			return Outcome.CREDENTIAL;
		}
		if (status == 429) {
			return Outcome.THROTTLED;
		}
		if (status == 408 || status >= 500 || status < 100) {
			return Outcome.AVAILABILITY;
		}
		return Outcome.REQUEST;
	}

}
