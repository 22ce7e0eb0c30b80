package io.github.llmresilience.actuate;

import java.time.Duration;

import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Clients for the tests that talk to a running actuator over real HTTP.
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

	/** How long a test may run before it is reported as hung (never a latency budget). */
	static final long HANG_MINUTES = 10;

	private ActuatorClients() {
	}

	/**
	 * A client for {@code http://127.0.0.1:{port}{path}} whose exchanges have no
	 * deadline.
	 */
	static WebTestClient to(int port, String path) {
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port + path)
			.responseTimeout(NO_DEADLINE)
			.build();
	}

}
