package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ProviderState;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.ManualTime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 529 on one model marks its provider overloaded for the answer's wait hint: meanwhile
 * every chain tries other providers' targets first and that provider's other models last,
 * in their own order. Real HTTP to a fake provider; virtual time, and one test on the
 * system clock.
 */
class ProviderOverloadTests {

	private static final String OVERLOADED = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
			+ "\"message\":\"Overloaded\"}}";

	private static final FakeProvider provider = new FakeProvider();

	private final WebClient http = WebClient.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceEventsAutoConfiguration.class, LlmResilienceMetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("llm.resilience.targets.opus.provider=anthropic",
				"llm.resilience.targets.opus.model=claude-opus",
				"llm.resilience.targets.opus.base-url=" + provider.baseUrl("opus"),
				"llm.resilience.targets.sonnet.provider=anthropic", "llm.resilience.targets.sonnet.model=claude-sonnet",
				"llm.resilience.targets.sonnet.base-url=" + provider.baseUrl("sonnet"),
				"llm.resilience.targets.gpt.provider=openai", "llm.resilience.targets.gpt.model=gpt-4o",
				"llm.resilience.targets.gpt.base-url=" + provider.baseUrl("gpt"),
				"llm.resilience.chains.chat=opus,sonnet,gpt", "llm.resilience.retry.max-attempts=1");

	@AfterAll
	static void stopProvider() {
		provider.close();
	}

	@BeforeEach
	void answers() {
		provider.resetCounts();
		provider.always("opus", Reply.json(529, Map.of("retry-after", "20"), OVERLOADED));
		provider.always("sonnet", Reply.ok(ok("sonnet")));
		provider.always("gpt", Reply.ok(ok("gpt")));
	}

	@Test
	void aProviderWide529SendsTheChainToAnotherProviderForTheHintsDuration() {
		ManualTime time = new ManualTime();
		this.runner.withBean(Clock.class, () -> time).run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			Instant start = time.instant();

			// The 529 is not retried on Anthropic, and Anthropic's other model waits: the
			// other provider serves.
			assertThat(chat(resilience)).isEqualTo("from gpt");
			assertThat(requests()).isEqualTo("opus=1 sonnet=0 gpt=1");
			ProviderState anthropic = resilience.state().providers().get("anthropic");
			assertThat(anthropic.overloaded()).isTrue();
			assertThat(anthropic.overloadedUntil()).isEqualTo(start.plusSeconds(20));
			assertThat(anthropic.reason()).isEqualTo("overloaded (overloaded_error)");
			assertThat(resilience.state().providers().get("openai").overloaded()).isFalse();

			// While marked, the chain starts with the other provider.
			time.advance(Duration.ofSeconds(10));
			assertThat(chat(resilience)).isEqualTo("from gpt");
			assertThat(requests()).isEqualTo("opus=1 sonnet=0 gpt=2");

			// When the other provider fails too, the marked provider's models come last,
			// in the chain's order; the 529 moves the mark without a new event.
			provider.always("gpt", Reply.json(503, FakeProvider.OPENAI_503));
			assertThat(chat(resilience)).isEqualTo("from sonnet");
			assertThat(requests()).isEqualTo("opus=2 sonnet=1 gpt=3");
			Instant extended = resilience.state().providers().get("anthropic").overloadedUntil();
			assertThat(extended).isEqualTo(start.plusSeconds(30));

			// The mark ends by itself: the chain's own order again.
			time.advance(Duration.ofSeconds(21));
			assertThat(resilience.state().providers().get("anthropic").overloaded()).isFalse();
			provider.always("opus", Reply.ok(ok("opus")));
			assertThat(chat(resilience)).isEqualTo("from opus");

			// One incident, one event: a log line, a count, an entry in the recent list.
			assertThat(context.getBean(RecentStateChanges.class).list())
				.filteredOn((change) -> change.kind() == StateChange.Kind.PROVIDER_OVERLOADED)
				.singleElement()
				.satisfies((change) -> {
					assertThat(change.subject()).isEqualTo("anthropic");
					assertThat(change.until()).isEqualTo(start.plusSeconds(20));
				});
			Counter marked = context.getBean(MeterRegistry.class)
				.get("llm.resilience.state.transitions")
				.tags("kind", "provider-overloaded", "subject", "anthropic")
				.counter();
			assertThat(marked.count()).isEqualTo(1);
		});
	}

	@Test
	void withoutAHintTheMarkLastsTheConfiguredDefault() {
		ManualTime time = new ManualTime();
		provider.always("opus", Reply.json(529, OVERLOADED));
		this.runner.withBean(Clock.class, () -> time)
			.withPropertyValues("llm.resilience.provider-overload.default-duration=45s")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(chat(resilience)).isEqualTo("from gpt");
				assertThat(resilience.state().providers().get("anthropic").overloadedUntil())
					.isEqualTo(time.instant().plusSeconds(45));
			});
	}

	@Test
	void whenDisabledA529IsOnlyTheModelsFailure() {
		ManualTime time = new ManualTime();
		this.runner.withBean(Clock.class, () -> time)
			.withPropertyValues("llm.resilience.provider-overload.enabled=false")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(chat(resilience)).isEqualTo("from sonnet");
				assertThat(resilience.state().providers().get("anthropic").overloaded()).isFalse();
			});
	}

	@Test
	void onTheSystemClockTheMarkEndsAtTheHintAfterTheAnswer() {
		provider.always("opus", Reply.json(529, Map.of("retry-after", "60"), OVERLOADED));
		this.runner.run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			Instant before = Instant.now();
			assertThat(chat(resilience)).isEqualTo("from gpt");
			Instant after = Instant.now();

			Instant until = resilience.state().providers().get("anthropic").overloadedUntil();
			assertThat(until).isBetween(before.plusSeconds(60).minusMillis(1), after.plusSeconds(60).plusMillis(1));
			// Well within the minute, the next call starts with the other provider.
			assertThat(chat(resilience)).isEqualTo("from gpt");
			assertThat(provider.requests("opus")).isOne();
		});
	}

	private String chat(LlmResilience resilience) {
		String body = resilience
			.execute("chat",
					(attempt) -> this.http.post()
						.uri(attempt.target().baseUrl() + "/v1/messages")
						.bodyValue("{\"model\":\"" + attempt.target().model() + "\"}")
						.retrieve()
						.bodyToMono(String.class))
			.block();
		return body.substring(body.indexOf("from "), body.indexOf('"', body.indexOf("from ")));
	}

	private static String requests() {
		return "opus=" + provider.requests("opus") + " sonnet=" + provider.requests("sonnet") + " gpt="
				+ provider.requests("gpt");
	}

	private static String ok(String name) {
		return "{\"choices\":[{\"message\":{\"content\":\"from " + name + "\"},\"finish_reason\":\"stop\"}]}";
	}

}
