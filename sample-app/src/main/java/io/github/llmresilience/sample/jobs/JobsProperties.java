package io.github.llmresilience.sample.jobs;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The in-memory job queue behind {@code /v1/jobs} and its worker.
 */
@ConfigurationProperties("sample.jobs")
public class JobsProperties {

	/** Jobs the worker runs at the same time. */
	private int concurrency = 4;

	/**
	 * Attempts a job may spend before it becomes a dead letter; "no provider can serve
	 * now" spends none.
	 */
	private int maxAttempts = 5;

	/** How long a job waits after a spent attempt before it runs again. */
	private Duration attemptDelay = Duration.ofSeconds(2);

	/** How often an idle worker looks for a job that has become due. */
	private Duration idlePoll = Duration.ofMillis(50);

	public int getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getAttemptDelay() {
		return this.attemptDelay;
	}

	public void setAttemptDelay(Duration attemptDelay) {
		this.attemptDelay = attemptDelay;
	}

	public Duration getIdlePoll() {
		return this.idlePoll;
	}

	public void setIdlePoll(Duration idlePoll) {
		this.idlePoll = idlePoll;
	}

}
