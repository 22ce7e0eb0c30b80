package io.github.llmresilience.sample;

import java.time.Duration;

import io.github.llmresilience.sample.simulator.SimulatedProviders;
import io.github.llmresilience.sample.simulator.TargetStats;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Drives the simulator's admin API over HTTP, as a person with curl would.
 */
public final class SimulatorAdmin {

	private final WebTestClient http;

	public SimulatorAdmin(int port) {
		// A connection per request: Reactor Netty 1.3.6's server can leave a keep-alive
		// request unanswered (reactor/reactor-netty#4347).
		this.http = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.defaultHeader(HttpHeaders.CONNECTION, "close")
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	/** {@code PUT /admin/targets/{target}/mode} with the given JSON body. */
	public void mode(String target, String json) {
		this.http.put()
			.uri("/admin/targets/{target}/mode", target)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(json)
			.exchange()
			.expectStatus()
			.isOk();
	}

	public void reset() {
		this.http.post().uri("/admin/reset").exchange().expectStatus().isOk();
	}

	public SimulatedProviders.Stats stats() {
		return this.http.get()
			.uri("/admin/stats")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(SimulatedProviders.Stats.class)
			.returnResult()
			.getResponseBody();
	}

	public TargetStats stats(String target) {
		return stats().target(target);
	}

	/** Requests every simulated target received since the last reset. */
	public long totalRequests() {
		return stats().targets().values().stream().mapToLong(TargetStats::requests).sum();
	}

}
