package io.github.llmresilience.sample.jobs;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One queued question and what became of it.
 *
 * @param id the job's id
 * @param question what to ask
 * @param state where it is
 * @param attempts attempts spent: failures that were not "no provider can serve now"
 * @param notBefore when it may run again, or {@code null} for at once
 * @param answer the answer, once succeeded
 * @param servedBy the target that answered, once succeeded
 * @param lastError why the last call failed, or {@code null}
 * @param submittedAt when it was queued
 * @param finishedAt when it succeeded or became a dead letter, or {@code null}
 */
public record Job(String id, String question, JobState state, int attempts, @Nullable Instant notBefore,
		@Nullable String answer, @Nullable String servedBy, @Nullable String lastError, Instant submittedAt,
		@Nullable Instant finishedAt) {

	static Job queued(String id, String question, Instant now) {
		return new Job(id, question, JobState.QUEUED, 0, null, null, null, null, now, null);
	}

	Job running() {
		return new Job(this.id, this.question, JobState.RUNNING, this.attempts, null, null, null, this.lastError,
				this.submittedAt, null);
	}

	Job succeeded(String answer, String servedBy, Instant now) {
		return new Job(this.id, this.question, JobState.SUCCEEDED, this.attempts, null, answer, servedBy, null,
				this.submittedAt, now);
	}

	/** Back to the queue until the given time, attempts unchanged. */
	Job waiting(Instant notBefore, String error) {
		return new Job(this.id, this.question, JobState.QUEUED, this.attempts, notBefore, null, null, error,
				this.submittedAt, null);
	}

	/** One attempt spent; back to the queue, or a dead letter when none is left. */
	Job attemptFailed(String error, int maxAttempts, Instant notBefore, Instant now) {
		int spent = this.attempts + 1;
		if (spent >= maxAttempts) {
			return new Job(this.id, this.question, JobState.DEAD_LETTER, spent, null, null, null, error,
					this.submittedAt, now);
		}
		return new Job(this.id, this.question, JobState.QUEUED, spent, notBefore, null, null, error, this.submittedAt,
				null);
	}

	Job deadLetter(String error, Instant now) {
		return new Job(this.id, this.question, JobState.DEAD_LETTER, this.attempts, null, null, null, error,
				this.submittedAt, now);
	}

}
