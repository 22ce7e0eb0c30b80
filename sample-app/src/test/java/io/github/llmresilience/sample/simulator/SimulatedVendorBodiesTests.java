package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.usage.Usage;
import io.github.llmresilience.usage.UsageReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every answer the simulator gives is one the library's classifier for that vendor reads
 * as intended: a simulated outage must look like a real one, or the drills would prove
 * nothing.
 */
class SimulatedVendorBodiesTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final Prompt prompt = new Prompt("model-x", "What is a breaker?", false);

	@ParameterizedTest
	@EnumSource(SimulatedVendor.class)
	void failuresAreClassifiedAsTheModesMean(SimulatedVendor vendor) {
		VendorSimulation simulation = simulation(vendor);
		Instant now = Instant.now();

		assertThat(classify(vendor, simulation.outage()).outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify(vendor, simulation.overloaded()).outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify(vendor, simulation.serverError()).outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(classify(vendor, simulation.quotaExhausted(now)).outcome()).isEqualTo(Outcome.QUOTA);
		assertThat(classify(vendor, simulation.contextTooLong(this.prompt)).outcome()).isEqualTo(Outcome.REQUEST);
		Verdict throttled = classify(vendor, simulation.rateLimited(this.prompt, 2, now));
		assertThat(throttled.outcome()).isEqualTo(Outcome.THROTTLED);
		assertThat(throttled.waitHint())
			.hasValueSatisfying((hint) -> assertThat(hint).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(3)));
	}

	@ParameterizedTest
	@EnumSource(SimulatedVendor.class)
	void aRefusalIsAContentFilterInsideA200(SimulatedVendor vendor) {
		VendorSimulation simulation = simulation(vendor);
		Reply refusal = simulation.refusal(this.prompt, Instant.now());

		assertThat(refusal.status()).isEqualTo(200);
		assertThat(classify(vendor, refusal).outcome()).isEqualTo(Outcome.CONTENT_FILTER);
		assertThat(classify(vendor, simulation.answer(this.prompt, "An answer.", Instant.now())).outcome())
			.isEqualTo(Outcome.SUCCESS);
	}

	@ParameterizedTest
	@EnumSource(SimulatedVendor.class)
	void streamsAreCleanUnlessTheyRefuse(SimulatedVendor vendor) {
		VendorSimulation simulation = simulation(vendor);
		List<String> tokens = List.of("An ", "answer.");

		assertThat(outcomes(vendor, simulation.stream(this.prompt, tokens, false, Instant.now())))
			.containsOnly(Outcome.SUCCESS);
		assertThat(outcomes(vendor, simulation.stream(this.prompt, tokens, true, Instant.now())))
			.contains(Outcome.CONTENT_FILTER);
	}

	@ParameterizedTest
	@EnumSource(SimulatedVendor.class)
	void aStreamAskedForItsUsageEndsWithIt(SimulatedVendor vendor) {
		VendorSimulation simulation = simulation(vendor);
		Prompt prompt = new Prompt("model-x", "What is a breaker?", true, true);
		List<String> tokens = List.of("An ", "answer.");

		List<SseFrame> frames = simulation.stream(prompt, tokens, false, Instant.now());

		assertThat(outcomes(vendor, frames)).containsOnly(Outcome.SUCCESS);
		Usage usage = frames.stream()
			.map((frame) -> UsageReader.read(ProviderResponse.streamEvent(frame.event(), frame.data())))
			.filter(Objects::nonNull)
			.reduce(Usage.NONE, Usage::max);
		assertThat(usage.inputTokens()).isEqualTo(prompt.tokens());
		assertThat(usage.outputTokens()).isEqualTo(tokens.size());
	}

	@ParameterizedTest
	@EnumSource(SimulatedVendor.class)
	void aMalformedRequestIsTheVendorsOwn400(SimulatedVendor vendor) {
		VendorSimulation simulation = simulation(vendor);

		assertThatExceptionOfType(RejectedRequest.class).isThrownBy(() -> simulation.read("{\"model\": \"m\"}"))
			.satisfies((rejected) -> {
				assertThat(rejected.reply().status()).isEqualTo(400);
				assertThat(classify(vendor, rejected.reply()).outcome()).isEqualTo(Outcome.REQUEST);
			});
	}

	private static List<Outcome> outcomes(SimulatedVendor vendor, List<SseFrame> frames) {
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider(vendor.id());
		return frames.stream()
			.map((frame) -> classifier.classify(ProviderResponse.streamEvent(frame.event(), frame.data())).outcome())
			.collect(Collectors.toList());
	}

	private static Verdict classify(SimulatedVendor vendor, Reply reply) {
		Map<String, List<String>> headers = reply.headers()
			.entrySet()
			.stream()
			.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> List.of(entry.getValue())));
		return BuiltInClassifiers.forProvider(vendor.id())
			.classify(ProviderResponse.of(reply.status(), headers, reply.body()));
	}

	private static VendorSimulation simulation(SimulatedVendor vendor) {
		return switch (vendor) {
			case OPENAI -> new OpenAiSimulation(JSON);
			case ANTHROPIC -> new AnthropicSimulation(JSON);
		};
	}

}
