package io.github.llmresilience.classify.vendor.cohere;

import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.Finding;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.MessageFamilies;
import io.github.llmresilience.classify.vendor.VendorClassifier;
import org.jspecify.annotations.Nullable;

/**
 * Cohere: bodies carry only {@code {"message"}}, so the status decides and the message
 * refines: a trial key's per-minute limit is a throttle, its monthly cap a quota; 402 is
 * the billing cap; 498 an invalid token.
 */
final class CohereClassifier extends VendorClassifier {

	private static final Set<String> REFUSAL_FINISH = Set.of("ERROR_TOXIC", "ERROR_LIMIT_SAFETY");

	private static final String[] SUCCESS_MARKERS = { "ERROR_TOXIC", "ERROR_LIMIT_SAFETY" };

	CohereClassifier(String provider, ClassifierSettings settings) {
		super(provider, settings);
	}

	@Override
	protected String[] successMarkers() {
		return SUCCESS_MARKERS;
	}

	@Override
	protected Finding error(int status, ProviderResponse response, @Nullable Object json) {
		Object root = JsonBody.unwrapArray(json);
		String message = JsonBody.text(root, "message");
		if (status == 498) {
			// 498 was an invalid token; Cohere's errors page now also names it for a
			// request
			// blocked by its usage guidelines (cohere-developer-experience#189): the
			// message
			// tells which.
			MessageFamilies.Match match = MessageFamilies.BUILT_IN.match(message, Outcome.CONTENT_FILTER);
			if (match != null) {
				return new Finding(Outcome.CONTENT_FILTER, "blocked", true, null, null, match.reason());
			}
			return new Finding(Outcome.CREDENTIAL, "invalid_token", true, null, null, "status 498 at cohere");
		}
		if (status == 400 && (contains(message, "blocked output") || contains(message, "blocked input")
				|| contains(message, "usage guidelines"))) {
			return refusal("blocked");
		}
		return decide(status, null, null, message);
	}

	@Override
	protected @Nullable Finding successBody(@Nullable Object json, String body) {
		return refused(JsonBody.unwrapArray(json)) ? refusal("ERROR_TOXIC") : null;
	}

	@Override
	protected @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data) {
		return (refused(json) || refused(JsonBody.member(json, "delta")) || refused(JsonBody.member(json, "response")))
				? refusal("ERROR_TOXIC") : null;
	}

	private static boolean refused(@Nullable Object root) {
		String finish = JsonBody.text(root, "finish_reason");
		return finish != null && REFUSAL_FINISH.contains(finish);
	}

}
