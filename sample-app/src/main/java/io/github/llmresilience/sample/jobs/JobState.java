package io.github.llmresilience.sample.jobs;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where a job is in its life.
 */
public enum JobState {

	/** Waiting for a worker, possibly not before a given time. */
	QUEUED,

	/** A worker is calling the provider for it. */
	RUNNING,

	/** Answered. */
	SUCCEEDED,

	/** Given up: its attempts are spent, or the provider rejected the question itself. */
	DEAD_LETTER;

	@JsonValue
	public String id() {
		return name().toLowerCase(Locale.ROOT);
	}

	public boolean isSettled() {
		return this == SUCCEEDED || this == DEAD_LETTER;
	}

}
