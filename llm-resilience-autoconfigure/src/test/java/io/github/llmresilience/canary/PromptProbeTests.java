package io.github.llmresilience.canary;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import io.github.llmresilience.classify.vendor.openai.OpenAi;
import io.github.llmresilience.extract.ProviderAnswerException;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The built-in canary sender against a real HTTP server: each vendor's request (path, key
 * header, body), the answer's text read from a well-formed body, and every other body
 * (empty, truncated, another vendor's, an error envelope in a 200) refused with a reason
 * that never shows the key.
 */
class PromptProbeTests {

	private static final String KEY = "sk-probe-secret-42";

	private final FakeProvider provider = new FakeProvider();

	private final PromptProbe probe = new PromptProbe();

	@AfterEach
	void close() {
		this.provider.close();
	}

	static Stream<Arguments> vendors() {
		return Stream.of(
				Arguments.of("openai", FakeProvider.openAiAnswer("pong"), "/v1/chat/completions", "Authorization",
						"Bearer " + KEY, "\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]"),
				Arguments.of("mistral", FakeProvider.openAiAnswer("pong"), "/v1/chat/completions", "Authorization",
						"Bearer " + KEY, "\"model\":\"m-1\""),
				Arguments.of("openai-compatible", FakeProvider.openAiAnswer("pong"), "/v1/chat/completions",
						"Authorization", "Bearer " + KEY, "\"max_tokens\":16"),
				Arguments.of("azure-openai", FakeProvider.openAiAnswer("pong"),
						"/openai/deployments/m-1/chat/completions?api-version=" + OpenAi.AZURE_API_VERSION, "api-key",
						KEY, "\"max_tokens\":16"),
				Arguments.of("anthropic", FakeProvider.anthropicAnswer("pong"), "/v1/messages", "x-api-key", KEY,
						"\"max_tokens\":16"),
				Arguments.of("gemini", FakeProvider.geminiAnswer("pong"), "/v1beta/models/m-1:generateContent",
						"x-goog-api-key", KEY, "\"parts\":[{\"text\":\"ping\"}]"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("vendors")
	void eachVendorIsAskedInItsOwnFormatAndItsAnswerRead(String provider, String answer, String path, String header,
			String value, String body) {
		this.provider.always("v", Reply.ok(answer));
		assertThat(this.probe.probe(request(provider)).block(Duration.ofSeconds(10))).isEqualTo("pong");
		assertThat(this.provider.lastHeader("v", header)).containsExactly(value);
		assertThat(this.provider.lastBody("v")).contains(body);
		assertThat(ChatFormat.of(provider).uri(URI.create(this.provider.baseUrl("v")), target(provider)).toString())
			.endsWith("/v" + path);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "   ", FakeProvider.DEGRADED_TRUNCATED, "<html>Bad gateway</html>", "{\"choices\":[]}",
			"{\"error\":{\"message\":\"overloaded\"}}", "{\"choices\":[{\"message\":{\"content\":null}}]}",
			"{\"choices\":[{\"message\":{}}]} trailing" })
	void aBodyThatIsNoWellFormedAnswerIsRefused(String body) {
		this.provider.always("v", Reply.ok(body));
		assertThatExceptionOfType(CanaryFailure.class)
			.isThrownBy(() -> this.probe.probe(request("openai")).block(Duration.ofSeconds(10)))
			.withMessageStartingWith("HTTP 200 with")
			.withMessageContaining("not a well-formed OpenAI chat completion")
			.withMessageNotContaining(KEY);
	}

	@Test
	void anotherVendorsAnswerIsNoAnswer() {
		this.provider.always("v", Reply.ok(FakeProvider.openAiAnswer("pong")));
		assertThatExceptionOfType(CanaryFailure.class)
			.isThrownBy(() -> this.probe.probe(request("anthropic")).block(Duration.ofSeconds(10)))
			.withMessageContaining("Anthropic message");
	}

	@Test
	void anErrorStatusIsHandedOnWithItsHeadersAndBodyForTheClassifier() {
		this.provider.always("v", Reply.json(529, Map.of("retry-after", "7"),
				"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}"));
		assertThatExceptionOfType(ProviderAnswerException.class)
			.isThrownBy(() -> this.probe.probe(request("anthropic")).block(Duration.ofSeconds(10)))
			.withMessageNotContaining(KEY)
			.satisfies((error) -> {
				assertThat(error.response().status()).isEqualTo(529);
				assertThat(error.response().header("Retry-After")).isEqualTo("7");
				assertThat(error.response().body()).contains("overloaded_error");
			});
	}

	@Test
	void aPromptWithQuotesAndLineBreaksIsSentAsValidJson() {
		this.provider.always("v", Reply.ok(FakeProvider.openAiAnswer("{\"ok\":true}")));
		CanaryRequest request = new CanaryRequest(target("openai"), "Say \"ok\"\nas JSON\t\\", 16,
				Duration.ofSeconds(5));
		assertThat(this.probe.probe(request).block(Duration.ofSeconds(10))).isEqualTo("{\"ok\":true}");
		assertThat(StrictJson.read(this.provider.lastBody("v"))).isNotNull();
	}

	@Test
	void strictJsonTakesExactlyOneValue() {
		assertThat(StrictJson.isJson("{\"a\":[1,2,{\"b\":null}]}")).isTrue();
		assertThat(StrictJson.isJson(" 42 ")).isTrue();
		assertThat(StrictJson.isJson("\"text\"")).isTrue();
		assertThat(StrictJson.isJson("{\"a\":1} {\"b\":2}")).isFalse();
		assertThat(StrictJson.isJson("{\"a\":")).isFalse();
		assertThat(StrictJson.isJson("ok")).isFalse();
		assertThat(StrictJson.isJson("")).isFalse();
	}

	@Test
	void theSenderNamesWhatItCannotSend() {
		assertThat(PromptProbe.unsupported(target("openai"))).isNull();
		assertThat(PromptProbe.unsupported(new Target("t", "bedrock", null, null, null, null, null)))
			.contains("not 'bedrock'");
		assertThat(PromptProbe.unsupported(new Target("t", "azure-openai", null, null, null, null, Secret.of(KEY))))
			.contains("needs the target's base-url")
			.doesNotContain(KEY);
		assertThat(PromptProbe.unsupported(new Target("t", "anthropic", null, null, null, null, null))).isNull();
	}

	private CanaryRequest request(String provider) {
		return new CanaryRequest(target(provider), "ping", 16, Duration.ofSeconds(5));
	}

	private Target target(String provider) {
		return new Target("t", provider, null, "m-1", null, URI.create(this.provider.baseUrl("v")), Secret.of(KEY));
	}

}
