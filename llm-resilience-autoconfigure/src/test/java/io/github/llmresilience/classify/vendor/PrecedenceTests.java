package io.github.llmresilience.classify.vendor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The precedence rule of {@code docs/classification.md}: a vendor's specific code beats
 * the message; the message and the details beat a generic type and the status; the status
 * is the last resort. Each verdict names what decided it.
 */
class PrecedenceTests {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-24T12:00:00Z"), ZoneOffset.UTC);

	private static Verdict classify(String provider, int status, String body) {
		return classify(provider, status, Map.of(), body);
	}

	private static Verdict classify(String provider, int status, Map<String, List<String>> headers, String body) {
		return BuiltInClassifiers.forProvider(provider, ClassifierSettings.defaults().withClock(CLOCK))
			.classify(ProviderResponse.of(status, headers, body));
	}

	@Test
	void aSpecificCodeBeatsTheMessage() {
		// OpenAI's per-minute limit on a free account links to billing: the code decides.
		Verdict verdict = classify("openai", 429, "{\"error\":{\"message\":\"Rate limit reached for gpt-4o on requests "
				+ "per min. Limit: 3 / min. You can increase your rate limit by adding a payment method to your "
				+ "account at https://platform.openai.com/account/billing.\",\"type\":\"requests\","
				+ "\"code\":\"rate_limit_exceeded\"}}");
		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
		assertThat(verdict.reason()).isEqualTo("vendor code rate_limit_exceeded");
	}

	@Test
	void theMessageBeatsAGenericTypeAndTheStatus() {
		Verdict verdict = classify("anthropic", 400,
				"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
						+ "\"message\":\"This organization has been disabled.\"}}");
		assertThat(verdict.outcome()).isEqualTo(Outcome.CREDENTIAL);
		assertThat(verdict.reason()).isEqualTo("message family access: \"organization has been disabled\"");
		assertThat(verdict.rule()).isEqualTo(Verdict.BUILT_IN);
	}

	@Test
	void aPeriodInTheMessageReadsARateLimitCodesLimit() {
		Verdict verdict = classify("openai", 429,
				"{\"error\":{\"message\":\"Rate limit reached for gpt-4 in "
						+ "organization org-x on tokens per day (TPD): Limit 500000, Used 499000, Requested 2000.\","
						+ "\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}");
		assertThat(verdict.outcome()).isEqualTo(Outcome.QUOTA);
		assertThat(verdict.reason()).isEqualTo("message family long-period: \"tokens per day\"");
	}

	@Test
	void googlesQuotaFailureBeatsTheMessagesWords() {
		String body = "{\"error\":{\"code\":429,\"message\":\"You exceeded your current quota, please check your plan "
				+ "and billing details.\",\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":"
				+ "\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
				+ "\"GenerateRequestsPerMinutePerProjectPerModel-FreeTier\"}]},{\"@type\":"
				+ "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"41s\"}]}}";
		Verdict verdict = classify("gemini", 429, body);
		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
		assertThat(verdict.reason())
			.isEqualTo("detail QuotaFailure GenerateRequestsPerMinutePerProjectPerModel-FreeTier");
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(41));
	}

	@Test
	void withoutDetailsTheMessageDecides() {
		Verdict verdict = classify("gemini", 429, "{\"error\":{\"code\":429,\"message\":\"You exceeded your current "
				+ "quota, please check your plan and billing details.\",\"status\":\"RESOURCE_EXHAUSTED\"}}");
		assertThat(verdict.outcome()).isEqualTo(Outcome.QUOTA);
		assertThat(verdict.reason()).startsWith("message family money");
	}

	@Test
	void theStatusIsTheLastResortAndSaysSo() {
		Verdict verdict = classify("openai", 418, "{\"error\":{\"message\":\"I am a teapot\",\"type\":\"teapot\"}}");
		assertThat(verdict.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(verdict.rule()).isEqualTo(Verdict.DEFAULT);
		assertThat(verdict.reason()).isEqualTo("status 418 default");
	}

	@Test
	void theSameStatusMeansWhatItsProviderSays() {
		assertThat(classify("groq", 498, "").outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify("groq", 498, "").reason()).isEqualTo("status 498 at groq");
		assertThat(classify("cohere", 498, "{\"message\":\"invalid api token\"}").outcome())
			.isEqualTo(Outcome.CREDENTIAL);
		// Cohere's errors page also names 498 for a request its usage guidelines block.
		assertThat(classify("cohere", 498,
				"{\"message\":\"blocked input: please adjust your prompt and try again, "
						+ "as it may be a potential violation of our Usage Guidelines\"}")
			.outcome()).isEqualTo(Outcome.CONTENT_FILTER);
		// TGI answers 429 when its queue is full: the server's capacity, not an account.
		assertThat(classify("tgi", 429, "").outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify("openai-compatible", 429, "").outcome()).isEqualTo(Outcome.THROTTLED);
	}

	@Test
	void capacityOnAnOddStatusOrInAPageIsAvailability() {
		assertThat(classify("anthropic", 529, "").outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify("openai-compatible", 530, "error code: 1016").outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify("openai-compatible", 499, "").outcome()).isEqualTo(Outcome.AVAILABILITY);
		Verdict page = classify("openai", 429, Map.of("content-type", List.of("text/plain")),
				"The server is overloaded, please try again later.");
		assertThat(page.outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(page.reason()).isEqualTo("message family capacity: \"overloaded\"");
	}

	@Test
	void anUnknownOpenAiShapedServerKeepsTheCompatibleReading() {
		Verdict verdict = classify("openai-compatible", 402, "{\"error\":{\"message\":\"Insufficient credits — top up "
				+ "your balance\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_credits\"}}");
		assertThat(verdict.outcome()).isEqualTo(Outcome.QUOTA);
	}

	@Test
	void anErrorInsideAStreamIsReadAsTheSameAnswerOutsideOne() {
		Map<String, List<String>> sse = Map.of("content-type", List.of("text/event-stream"));
		// TGI's in-stream error: a string error and its error_type.
		Verdict tgi = classify("tgi", 200, sse,
				"data: {\"error\":\"Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096\","
						+ "\"error_type\":\"validation\"}\n\n");
		assertThat(tgi.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(tgi.reason()).isEqualTo("vendor code validation");
		// Moonshot's overload mid-stream is the provider's, as it is on a 429.
		Verdict moonshot = classify("moonshot", 200, sse, "data: {\"error\":{\"message\":\"The engine is currently "
				+ "overloaded, please try again later\",\"type\":\"engine_overloaded_error\"}}\n\n");
		assertThat(moonshot.outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(moonshot.providerWide()).isTrue();
	}

	@Test
	void aContentFilterWhoseFilterFailedIsNotARefusal() {
		// Azure: the filter itself failed on this chunk; the answer stands.
		String chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null,"
				+ "\"content_filter_results\":{\"error\":{\"code\":\"content_filter_error\",\"message\":\"The "
				+ "contents are not filtered\"}}}]}\n\ndata: [DONE]\n\n";
		Verdict verdict = classify("azure-openai", 200, Map.of("content-type", List.of("text/event-stream")), chunk);
		assertThat(verdict.outcome()).isEqualTo(Outcome.SUCCESS);
	}

	@Test
	void everyFamilyFileIsReadAndNoPhraseIsBlank() {
		assertThat(MessageFamilies.BUILT_IN.families()).extracting(MessageFamilies.Family::name)
			.containsExactly("long-period", "short-period", "money", "access", "capacity", "refusal", "request");
		for (MessageFamilies.Family family : MessageFamilies.BUILT_IN.families()) {
			assertThat(family.phrases()).as(family.name()).isNotEmpty().allSatisfy((phrase) -> {
				assertThat(phrase).isEqualTo(phrase.strip().toLowerCase(java.util.Locale.ROOT)).hasSizeGreaterThan(1);
			});
		}
	}

	@Test
	void familiesMatchCaseInsensitivelyInTheBoundedPrefixOnly() {
		assertThat(MessageFamilies.BUILT_IN.match("YOUR CREDIT BALANCE IS TOO LOW")).isNotNull()
			.satisfies((match) -> assertThat(match.outcome()).isEqualTo(Outcome.QUOTA));
		String late = "x".repeat(MessageFamilies.MAX_CHARS) + " insufficient balance";
		assertThat(MessageFamilies.BUILT_IN.match(late)).isNull();
		assertThat(MessageFamilies.BUILT_IN.match(null)).isNull();
		assertThat(MessageFamilies.BUILT_IN.match("\u0000\uffff")).isNull();
	}

}
