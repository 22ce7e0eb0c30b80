package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.Fixtures;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.ManualTime;
import io.github.llmresilience.web.RestClientErrorExtractor;
import io.github.llmresilience.web.WebClientErrorExtractor;
import reactor.core.publisher.Mono;

import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * An {@link LlmResilience} on virtual time against a real HTTP provider, with call
 * functions the way an application writes them (WebClient, RestClient).
 */
final class EngineHarness implements AutoCloseable {

	final ManualTime time = new ManualTime();

	final FakeProvider provider = new FakeProvider();

	final AtomicInteger inFlight = new AtomicInteger();

	final List<StateChange> events = new CopyOnWriteArrayList<>();

	final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();

	final WebClient webClient = WebClient.create();

	final RestClient restClient = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()).build();

	LlmResilience resilience;

	/**
	 * Targets on the fake provider: openai, account = name, model gpt-4o, one region
	 * each.
	 */
	EngineHarness build(Consumer<LlmResilienceBuilder> customizer, String... targets) {
		LlmResilienceBuilder builder = LlmResilience.builder()
			.clock(this.time)
			.scheduler(this.time)
			.extractors(ErrorExtractors.standard()
				.with(List.of(new WebClientErrorExtractor(), new RestClientErrorExtractor())))
			.listener(this.events::add);
		for (String name : targets) {
			builder.target(target(name, name));
		}
		builder.chain("chat", targets);
		customizer.accept(builder);
		this.resilience = builder.build();
		return this;
	}

	/** Explicit targets, all in the chain "chat" in the given order. */
	EngineHarness build(List<Target> targets, Consumer<LlmResilienceBuilder> customizer) {
		LlmResilienceBuilder builder = LlmResilience.builder()
			.clock(this.time)
			.scheduler(this.time)
			.extractors(ErrorExtractors.standard()
				.with(List.of(new WebClientErrorExtractor(), new RestClientErrorExtractor())))
			.listener(this.events::add);
		targets.forEach(builder::target);
		builder.chain("chat", targets.stream().map(Target::name).toList());
		customizer.accept(builder);
		this.resilience = builder.build();
		return this;
	}

	Target target(String name, String account) {
		return new Target(name, "openai", account, "gpt-4o", "region-" + name, URI.create(this.provider.baseUrl(name)),
				null);
	}

	/** The reactive call an application writes: POST the request, read the body. */
	Mono<String> webClientCall(Attempt attempt) {
		return Mono.defer(() -> {
			this.inFlight.incrementAndGet();
			this.idempotencyKeys.add(attempt.idempotencyKey());
			return this.webClient.post()
				.uri(attempt.target().baseUrl() + "/v1/chat/completions")
				.header("Idempotency-Key", attempt.idempotencyKey())
				.bodyValue("{\"model\":\"" + attempt.target().model() + "\"}")
				.retrieve()
				.bodyToMono(String.class);
		}).doFinally((signal) -> this.inFlight.decrementAndGet());
	}

	/**
	 * The reactive call an application writes that hands its answer (headers, usage)
	 * over; virtual time stands still while it is in flight.
	 */
	Mono<String> handingOver(Attempt attempt) {
		return Mono.defer(() -> {
			this.inFlight.incrementAndGet();
			return handOver(this.webClient, attempt);
		}).doFinally((signal) -> this.inFlight.decrementAndGet());
	}

	/** POST the request, hand the answer over, read the body. */
	static Mono<String> handOver(WebClient client, Attempt attempt) {
		return client.post()
			.uri(attempt.target().baseUrl() + "/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.toEntity(String.class)
			.map((entity) -> {
				attempt.answered(entity.getHeaders().asMultiValueMap(), entity.getBody());
				return entity.getBody();
			});
	}

	/** The blocking call an application writes with RestClient. */
	String restClientCall(Attempt attempt) {
		this.inFlight.incrementAndGet();
		try {
			return this.restClient.post()
				.uri(attempt.target().baseUrl() + "/v1/chat/completions")
				.body("{}")
				.retrieve()
				.body(String.class);
		}
		finally {
			this.inFlight.decrementAndGet();
		}
	}

	String chat() {
		return this.time.await(this.resilience.execute("chat", this::webClientCall), this.inFlight::get);
	}

	String chat(CallOptions options) {
		return this.time.await(this.resilience.execute("chat", options, this::webClientCall), this.inFlight::get);
	}

	/** A blocking call on its own thread, with virtual time moved for its backoffs. */
	String chatBlocking() {
		CompletableFuture<String> future = CompletableFuture
			.supplyAsync(() -> this.resilience.call("chat", this::restClientCall));
		// Jumps shorter than the attempt timeout: see ManualTime#await(CompletableFuture,
		// IntSupplier, Duration).
		return this.time.await(future, this.inFlight::get, Duration.ofSeconds(10));
	}

	Throwable chatFailure() {
		return chatFailure(CallOptions.NONE);
	}

	Throwable chatFailure(CallOptions options) {
		try {
			chat(options);
		}
		catch (Throwable ex) {
			return ex;
		}
		throw new AssertionError("Expected the call to fail");
	}

	List<StateChange> events(StateChange.Kind kind) {
		List<StateChange> matching = new ArrayList<>();
		for (StateChange change : this.events) {
			if (change.kind() == kind) {
				matching.add(change);
			}
		}
		return matching;
	}

	void at(Duration sinceStart) {
		this.time.advanceTo(this.time.instant().minus(this.time.elapsed()).plus(sinceStart));
	}

	static String fixture(String id) {
		return Fixtures.vendorErrors()
			.stream()
			.filter((fixture) -> fixture.id().equals(id))
			.findFirst()
			.orElseThrow()
			.bodyText();
	}

	@Override
	public void close() {
		this.provider.close();
	}

}
