package io.github.llmresilience.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The status page on the management server.
 */
@ConfigurationProperties("llm.resilience.status-page")
public class LlmResilienceStatusPageProperties {

	/**
	 * Whether to serve the status page (the llmresiliencepage endpoint, at {management
	 * base path}/llm-resilience/) and keep the per-second traffic it charts. The endpoint
	 * must also be exposed, like any other.
	 */
	private boolean enabled = false;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

}
