package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import io.github.llmresilience.sample.TestPorts;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.HandlerStrategies;

/**
 * A {@link ProviderSimulator} of its own on a free port, with answers of one fixed
 * latency on the given time, and a client that calls primary (OpenAI) over real HTTP and
 * notes when each answer (or first event of a stream) came.
 */
final class RunningSimulator implements AutoCloseable {

	private static final ParameterizedTypeReference<ServerSentEvent<String>> SSE = new ParameterizedTypeReference<>() {
	};

	static final String TARGET = "primary";

	private final SimulatedProviders providers;

	private final ProviderSimulator simulator;

	private final WebClient http;

	private final Supplier<Duration> elapsed;

	/** What came back, in the order it came. */
	final Queue<Answered> answers = new ConcurrentLinkedQueue<>();

	/**
	 * @param latency every answer's latency (a distribution without spread)
	 * @param elapsed the time since the test's start, as the answers note it
	 */
	RunningSimulator(Clock clock, Scheduler scheduler, Duration latency, Supplier<Duration> elapsed) {
		this.providers = new SimulatedProviders(clock,
				Map.of(TARGET, SimulatedVendor.OPENAI, "secondary", SimulatedVendor.ANTHROPIC));
		SimulatorProperties properties = new SimulatorProperties();
		properties.setPort(TestPorts.free());
		this.simulator = new ProviderSimulator(this.providers, properties, JsonMapper.builder().build(),
				HandlerStrategies.withDefaults(), clock, scheduler, new LatencyDistribution(latency, 0, latency));
		this.simulator.start();
		this.elapsed = elapsed;
		// A connection per request: Reactor Netty 1.3.6's server can leave a keep-alive
		// request unanswered (reactor/reactor-netty#4347).
		this.http = WebClient.builder()
			.baseUrl("http://127.0.0.1:" + this.simulator.port())
			.defaultHeader(HttpHeaders.CONNECTION, "close")
			.build();
	}

	/** {@code PUT /admin/targets/primary/mode}: the mode as the admin API shows it. */
	String mode(String json) {
		return this.http.put()
			.uri("/admin/targets/{target}/mode", TARGET)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
	}

	/** Send a chat request to primary; its answer is noted in {@link #answers}. */
	void send(boolean stream) {
		String body = "{\"model\": \"gpt-4o\", \"stream\": " + stream
				+ ", \"messages\": [{\"role\": \"user\", \"content\": \"What is a brownout?\"}]}";
		WebClient.RequestHeadersSpec<?> request = this.http.post()
			.uri("/{target}/v1/chat/completions", TARGET)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(body);
		Duration sent = this.elapsed.get();
		Mono<Answered> answered = request.exchangeToMono((response) -> {
			int status = response.statusCode().value();
			if (stream && status == 200) {
				// The first event is the first token's time; the rest is read and let go.
				return response.bodyToFlux(SSE).index().doOnNext((event) -> {
					if (event.getT1() == 0) {
						this.answers.add(new Answered(status, event.getT2().data(), sent, this.elapsed.get()));
					}
				}).then(Mono.empty());
			}
			return response.bodyToMono(String.class)
				.defaultIfEmpty("")
				.map((text) -> new Answered(status, text, sent, this.elapsed.get()));
		});
		answered.subscribe(this.answers::add,
				(ex) -> this.answers.add(new Answered(0, ex.toString(), sent, this.elapsed.get())));
	}

	TargetStats stats() {
		return this.providers.stats().target(TARGET);
	}

	ServingSlots slots() {
		return this.providers.target(TARGET).slots();
	}

	List<Answered> answered() {
		return List.copyOf(this.answers);
	}

	@Override
	public void close() {
		this.simulator.stop();
	}

	/**
	 * One answer.
	 *
	 * @param status its HTTP status (0: the request failed)
	 * @param body its body, or a stream's first event
	 * @param sent when its request was sent, since the test's start
	 * @param at when it came, since the test's start
	 */
	record Answered(int status, String body, Duration sent, Duration at) {

		/** From its request's sending to its coming. */
		Duration latency() {
			return this.at.minus(this.sent);
		}

		boolean overloaded() {
			return this.status == 429 && this.body.contains("currently overloaded");
		}

	}

}
