package io.github.llmresilience.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.execute.LlmResilience;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.micrometer.tracing.test.autoconfigure.AutoConfigureTracing;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A failover as one trace, through a real OpenTelemetry SDK (Boot's own tracing
 * auto-configuration and Micrometer's OpenTelemetry bridge) exporting to memory: the
 * call's span under the request's, one child span per attempt, and, through the chain's
 * Spring AI ChatModel, Spring AI's own span of each provider request under the attempt
 * that sent it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.simulator.latency-scale=0.02", "llm.resilience.retry.backoff-base=10ms",
				"llm.resilience.retry.max-attempts=1", "management.tracing.sampling.probability=1.0" })
@AutoConfigureWebTestClient
@AutoConfigureTracing
class FailoverTraceTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	private static final AttributeKey<String> TARGET = AttributeKey.stringKey("llm.resilience.target");

	private static final AttributeKey<String> VERDICT = AttributeKey.stringKey("llm.resilience.verdict");

	private static final AttributeKey<String> SERVED_BY = AttributeKey.stringKey("llm.resilience.served_by");

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Exporter {

		@Bean
		InMemorySpanExporter inMemorySpanExporter() {
			return InMemorySpanExporter.create();
		}

	}

	@Autowired
	private WebTestClient http;

	@Autowired
	private InMemorySpanExporter spans;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	@Qualifier("chatChatModel")
	private ChatModel chatModel;

	private final SimulatorAdmin simulator = new SimulatorAdmin(SIMULATOR_PORT);

	@BeforeEach
	void primaryDown() {
		this.simulator.reset();
		ResilienceState.reset(this.resilience);
		this.simulator.mode("primary", "{\"mode\": \"outage\"}");
		this.spans.reset();
	}

	/** The finished spans once the call's own has been exported. */
	private List<SpanData> callTrace() {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.spans.getFinishedSpanItems()
				.stream()
				.anyMatch((span) -> span.getAttributes().get(SERVED_BY) != null));
		SpanData call = this.spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getAttributes().get(SERVED_BY) != null)
			.findFirst()
			.orElseThrow();
		return this.spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getTraceId().equals(call.getTraceId()))
			.toList();
	}

	private static SpanData named(List<SpanData> trace, String name) {
		return trace.stream()
			.filter((span) -> span.getName().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError(
					"No span " + name + " in " + trace.stream().map(SpanData::getName).toList()));
	}

	private static List<SpanData> childrenOf(List<SpanData> trace, SpanData parent) {
		return trace.stream().filter((span) -> span.getParentSpanId().equals(parent.getSpanId())).toList();
	}

	@Test
	void anAnswerServedAfterAFailoverIsOneTraceTheRequestTheCallAndItsAttempts() {
		this.http.post()
			.uri("/v1/answers")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("question", "What is a circuit breaker?"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.servedBy")
			.isEqualTo("secondary");

		List<SpanData> trace = callTrace();
		SpanData call = named(trace, "llm chain chat");
		assertThat(call.getAttributes().get(SERVED_BY)).isEqualTo("secondary");
		assertThat(call.getAttributes().get(AttributeKey.stringKey("llm.resilience.outcome"))).isEqualTo("served");
		// The call is a child of the application's own server span: one trace.
		SpanData server = trace.stream()
			.filter((span) -> span.getSpanId().equals(call.getParentSpanId()))
			.findFirst()
			.orElseThrow(() -> new AssertionError("The call's span has no parent in its trace"));
		assertThat(server.getName()).containsIgnoringCase("post");
		List<SpanData> attempts = childrenOf(trace, call).stream()
			.filter((span) -> span.getName().startsWith("llm attempt"))
			.toList();
		assertThat(attempts).extracting((span) -> span.getAttributes().get(TARGET))
			.containsExactly("primary", "secondary");
		assertThat(attempts).extracting((span) -> span.getAttributes().get(VERDICT))
			.containsExactly("availability", "success");
		assertThat(attempts.get(0).getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name")))
			.isEqualTo("openai");
		assertThat(attempts.get(1).getAttributes().get(AttributeKey.stringKey("gen_ai.provider.name")))
			.isEqualTo("anthropic");
		assertThat(attempts.get(0).getStartEpochNanos()).isLessThan(attempts.get(1).getStartEpochNanos());
	}

	@Test
	void throughSpringAiEachProviderRequestIsItsAttemptsChildAndASkipAnEventOnTheCall() {
		assertThat(this.chatModel.call("What is a circuit breaker?")).isNotBlank();

		List<SpanData> trace = callTrace();
		SpanData call = named(trace, "llm chain chat");
		List<SpanData> attempts = childrenOf(trace, call);
		assertThat(attempts).extracting((span) -> span.getAttributes().get(TARGET))
			.containsExactly("primary", "secondary");
		for (SpanData attempt : attempts) {
			assertThat(childrenOf(trace, attempt)).singleElement()
				.satisfies(
						(provider) -> assertThat(provider.getAttributes().get(AttributeKey.stringKey("gen_ai.system")))
							.isEqualTo(attempt.getAttributes().get(AttributeKey.stringKey("gen_ai.system"))));
		}

		// With primary's breaker forced open, the next call passes it over: an event on
		// the call's span says why.
		this.resilience.operator().forceOpen("primary");
		this.spans.reset();
		assertThat(this.chatModel.call("And now?")).isNotBlank();
		SpanData skipping = named(callTrace(), "llm chain chat");
		assertThat(skipping.getEvents()).extracting(EventData::getName)
			.contains("skipped primary: breaker_forced_open");
		assertThat(skipping.getAttributes().get(AttributeKey.stringKey("llm.resilience.fail_fast")))
			.isEqualTo("breaker_forced_open");
	}

}
