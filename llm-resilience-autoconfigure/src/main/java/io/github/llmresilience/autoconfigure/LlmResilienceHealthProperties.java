package io.github.llmresilience.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How llm-resilience reports to the application's health.
 */
@ConfigurationProperties("llm.resilience.health")
public class LlmResilienceHealthProperties {

	/**
	 * Whether a chain without a usable target makes the llmResilience health DOWN (and so
	 * the application's health, HTTP 503) instead of DEGRADED (HTTP 200, not part of the
	 * aggregate status). Keep it false where a liveness probe reads the health: a
	 * provider's outage must not restart pods.
	 */
	private boolean downWhenUnavailable = false;

	public boolean isDownWhenUnavailable() {
		return this.downWhenUnavailable;
	}

	public void setDownWhenUnavailable(boolean downWhenUnavailable) {
		this.downWhenUnavailable = downWhenUnavailable;
	}

}
