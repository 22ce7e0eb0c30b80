package io.github.llmresilience.benchmarks;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.BlockingTargetCall;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.extract.ProviderAnswerException;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a call costs when its only target cannot serve: its breaker is open, or its quota
 * scope is gated. The baseline is what the call would cost without the protection: one
 * attempt against a provider that answers 503 at once, on loopback.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FailFastBenchmark {

	private static final String SCOPE = Target.of("primary", "openai").quotaScope();

	private final BlockingTargetCall<String> neverCalled = (attempt) -> {
		throw new AssertionError("A target that cannot serve was called");
	};

	private LlmResilience breakerOpen;

	private LlmResilience scopeGated;

	private Local503Server server;

	private HttpClient client;

	private HttpRequest request;

	@Setup
	public void setUp() throws IOException {
		// An open duration longer than any run, so that no half-open trial happens inside
		// it.
		BreakerSettings longOpen = new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, Duration.ofHours(1),
				Duration.ofHours(1), 1);
		CircuitBreakerRegistry circuitBreakers = CircuitBreakerRegistry.ofDefaults();
		this.breakerOpen = resilience(longOpen, circuitBreakers);
		circuitBreakers.getAllCircuitBreakers().forEach(CircuitBreaker::transitionToOpenState);
		this.scopeGated = resilience(BreakerSettings.defaults(), CircuitBreakerRegistry.ofDefaults());
		this.server = Local503Server.start();
		this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		this.request = HttpRequest.newBuilder(this.server.uri("/v1/chat/completions"))
			.header("content-type", "application/json")
			.POST(HttpRequest.BodyPublishers
				.ofString("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\"," + "\"content\":\"ping\"}]}"))
			.build();
	}

	@Setup(Level.Iteration)
	public void gate() {
		// The longest gate allowed (throttle.max-wait); renewed every iteration. A rate
		// limit whose Retry-After gates the scope, answered once: one attempt per call.
		ProviderResponse rateLimited = ProviderResponse.of(429, Map.of("retry-after", List.of("300")),
				"{\"error\":{\"code\":\"rate_limit_exceeded\",\"type\":\"requests\"}}");
		try {
			this.scopeGated.callOnTarget("primary", CallOptions.NONE, (attempt) -> {
				throw new ProviderAnswerException(rateLimited);
			});
		}
		catch (LlmUnavailableException expected) {
			// The scope is gated now.
		}
		if (this.scopeGated.isUsable("primary")) {
			throw new IllegalStateException("The rate limit did not gate " + SCOPE);
		}
	}

	@TearDown
	public void tearDown() {
		this.server.close();
	}

	private static LlmResilience resilience(BreakerSettings breaker, CircuitBreakerRegistry circuitBreakers) {
		return LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.breaker(breaker)
			.circuitBreakers(circuitBreakers)
			.retry(new RetrySettings(1, Duration.ZERO, Duration.ZERO, 0, Duration.ofSeconds(10), 0))
			.observer(CountingObserver.create())
			.build();
	}

	/** The only target's breaker is open: the call fails without a request. */
	@Benchmark
	public Object breakerOpen() {
		return failFast(this.breakerOpen);
	}

	/** The only target's quota scope is gated: the call fails without a request. */
	@Benchmark
	public Object scopeGated() {
		return failFast(this.scopeGated);
	}

	/** Baseline: one request to a provider that answers 503 at once, over loopback. */
	@Benchmark
	public HttpResponse<String> http503Attempt() throws IOException, InterruptedException {
		HttpResponse<String> response = this.client.send(this.request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 503) {
			throw new IllegalStateException("Expected 503, got " + response.statusCode());
		}
		return response;
	}

	private Object failFast(LlmResilience resilience) {
		try {
			return resilience.call("chat", this.neverCalled);
		}
		catch (LlmUnavailableException expected) {
			return expected;
		}
	}

}
