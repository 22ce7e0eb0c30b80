package io.github.llmresilience.sample.simulator;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The provider simulator that runs inside the sample app, so that the first run needs no
 * API key: a second HTTP server answering in each vendor's own format.
 */
@ConfigurationProperties("sample.simulator")
public class SimulatorProperties {

	/** Whether the simulator runs in this process; turn it off to call real providers. */
	private boolean enabled = true;

	/**
	 * Address the simulator listens on; loopback, so that it is never reachable from
	 * elsewhere.
	 */
	private String address = "127.0.0.1";

	/**
	 * Port the simulator listens on; the targets' base URLs in llm.resilience.targets
	 * point at it.
	 */
	private int port = 8089;

	/**
	 * Factor on every simulated latency: 1 is what real calls take, 0.05 makes answers
	 * twenty times faster.
	 */
	private double latencyScale = 1.0;

	/**
	 * Simulated targets by name and the vendor format each speaks; a target's base URL is
	 * http://address:port/name.
	 */
	private Map<String, SimulatedVendor> targets = new LinkedHashMap<>();

	/**
	 * Requests a minute each target accepts, by target name (none when absent): beyond it
	 * the target answers 429 with retry-after and its vendor's rate-limit headers, and
	 * every answer states the limit (x-ratelimit-limit-requests,
	 * anthropic-ratelimit-requests-limit).
	 */
	private Map<String, Integer> rateLimits = new LinkedHashMap<>();

	public SimulatorProperties() {
		this.targets.put("primary", SimulatedVendor.OPENAI);
		this.targets.put("secondary", SimulatedVendor.ANTHROPIC);
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getAddress() {
		return this.address;
	}

	public void setAddress(String address) {
		this.address = address;
	}

	public int getPort() {
		return this.port;
	}

	public void setPort(int port) {
		this.port = port;
	}

	public double getLatencyScale() {
		return this.latencyScale;
	}

	public void setLatencyScale(double latencyScale) {
		if (!(latencyScale >= 0)) {
			throw new IllegalArgumentException(
					"sample.simulator.latency-scale must be zero or positive, was " + latencyScale);
		}
		this.latencyScale = latencyScale;
	}

	public Map<String, SimulatedVendor> getTargets() {
		return this.targets;
	}

	public void setTargets(Map<String, SimulatedVendor> targets) {
		this.targets = targets;
	}

	public Map<String, Integer> getRateLimits() {
		return this.rateLimits;
	}

	public void setRateLimits(Map<String, Integer> rateLimits) {
		this.rateLimits = rateLimits;
	}

}
