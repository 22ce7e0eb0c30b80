package io.github.llmresilience.actuate;

import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.test.FakeProvider;

import org.springframework.http.HttpHeaders;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Clients for the tests that talk to a running actuator over real HTTP, and the call
 * their application makes to a fake provider.
 *
 * <p>
 * An exchange waits for the server's answer, however long a busy machine takes to produce
 * it. {@link WebTestClient}'s default response timeout (5 s) is a latency budget, and the
 * first exchange of a test class pays for a cold JVM (class loading, the client's and the
 * server's first connection, the endpoint's first serialization): on a loaded 2-core
 * machine that alone took longer than 5 s, and a correct answer was reported as an error.
 * What these tests check does not depend on how fast the answer comes, so no exchange has
 * a deadline; a server that never answers is caught by the test class's {@code @Timeout},
 * a hang detector far from any answer's latency.
 */
final class ActuatorClients {

	/**
	 * No deadline: the exchange ends when the answer (or the connection's failure) comes.
	 */
	static final Duration NO_DEADLINE = Duration.ofNanos(Long.MAX_VALUE);

	/**
	 * Every exchange on a connection of its own ({@code Connection: close}). Reactor
	 * Netty 1.3.6's server can stop reading a keep-alive connection when the next request
	 * comes before the previous one's operations have terminated
	 * (reactor/reactor-netty#4347, #4361): the request is never answered and the test
	 * hangs with every thread idle. It happened twice in full builds, in a GET right
	 * after another on the same connection.
	 */
	static WebTestClient.Builder oneConnectionPerRequest(WebTestClient.Builder builder) {
		return builder.defaultHeader(HttpHeaders.CONNECTION, "close");
	}

	/** How long a test may run before it is reported as hung (never a latency budget). */
	static final long HANG_MINUTES = 10;

	private static final WebClient http = WebClient.create();

	private ActuatorClients() {
	}

	/**
	 * A client for {@code http://127.0.0.1:{port}{path}} whose exchanges have no
	 * deadline.
	 */
	static WebTestClient to(int port, String path) {
		return oneConnectionPerRequest(WebTestClient.bindToServer()).baseUrl("http://127.0.0.1:" + port + path)
			.responseTimeout(NO_DEADLINE)
			.build();
	}

	/**
	 * Point the targets {@code primary} and {@code secondary} at a fake provider (from a
	 * test's {@code @DynamicPropertySource}).
	 */
	static void fakeProviderUrls(DynamicPropertyRegistry registry, FakeProvider provider) {
		registry.add("llm.resilience.targets.primary.base-url", () -> provider.baseUrl("primary"));
		registry.add("llm.resilience.targets.secondary.base-url", () -> provider.baseUrl("secondary"));
	}

	/**
	 * A call on the chain {@code chat} the way an application writes it: WebClient, the
	 * target's URL and key (when it has one). It waits for the executor's answer without
	 * a deadline of its own: the executor bounds every attempt (its attempt timeout), and
	 * how fast a busy machine gets there is not what these tests check.
	 */
	static String chat(LlmResilience resilience) {
		return resilience.execute("chat",
				(attempt) -> http.post().uri(attempt.target().baseUrl() + "/v1/chat/completions").headers((headers) -> {
					Secret key = attempt.target().apiKey();
					if (key != null) {
						headers.setBearerAuth(key.reveal());
					}
				}).bodyValue("{\"model\":\"" + attempt.target().model() + "\"}").retrieve().bodyToMono(String.class))
			.block();
	}

}
