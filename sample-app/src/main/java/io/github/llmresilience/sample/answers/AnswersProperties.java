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

	/**
	 * Whether the answers API answers degraded when no target can serve: the last answer
	 * to the same question, or an honest message, with servedBy "degraded". Off, it
	 * answers 503 (429 when every target is rate limited) with Retry-After. Jobs never
	 * answer degraded: they wait for a target.
	 */
	private boolean degraded;

	public String getChain() {
		return this.chain;
	}

	public void setChain(String chain) {
		this.chain = chain;
	}

	public boolean isDegraded() {
		return this.degraded;
	}

	public void setDegraded(boolean degraded) {
		this.degraded = degraded;
	}

	public Duration getDeadline() {
		return this.deadline;
	}

	public void setDeadline(Duration deadline) {
		this.deadline = deadline;
	}

}
