package io.github.llmresilience.sample.answers;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the answers API calls the providers.
 */
@ConfigurationProperties("sample.answers")
public class AnswersProperties {

	/** The llm-resilience chain every answer goes through. */
	private String chain = "chat";

	/** How long one answer may take in all: every attempt, backoff and failover. */
	private Duration deadline = Duration.ofSeconds(20);

	public String getChain() {
		return this.chain;
	}

	public void setChain(String chain) {
		this.chain = chain;
	}

	public Duration getDeadline() {
		return this.deadline;
	}

	public void setDeadline(Duration deadline) {
		this.deadline = deadline;
	}

}
