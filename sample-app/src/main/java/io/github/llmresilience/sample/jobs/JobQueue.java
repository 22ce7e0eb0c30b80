package io.github.llmresilience.sample.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * A small in-memory job queue: jobs wait until their {@code notBefore}, a worker takes
 * the one that has waited longest, and every change of a job is a new {@link Job} value.
 */
public final class JobQueue {

	private final Clock clock;

	private final int maxAttempts;

	private final Duration attemptDelay;

	private final Map<String, Job> jobs = new LinkedHashMap<>();

	/** Queued jobs by when they may run, then by age. */
	private final PriorityQueue<Ready> ready = new PriorityQueue<>(
			Comparator.comparing(Ready::notBefore).thenComparingLong(Ready::sequence));

	private long sequence;

	/**
	 * @param maxAttempts attempts a job may spend before it is a dead letter
	 * @param attemptDelay how long a job waits after a spent attempt
	 */
	public JobQueue(Clock clock, int maxAttempts, Duration attemptDelay) {
		this.clock = clock;
		this.maxAttempts = maxAttempts;
		this.attemptDelay = attemptDelay;
	}

	public synchronized Job submit(String question) {
		Instant now = this.clock.instant();
		Job job = Job.queued("job-" + (this.jobs.size() + 1), question, now);
		this.jobs.put(job.id(), job);
		enqueue(job.id(), now);
		return job;
	}

	/** The next job whose time has come, now running; empty when none is due. */
	public synchronized Optional<Job> take() {
		Ready next = this.ready.peek();
		if (next == null || next.notBefore().isAfter(this.clock.instant())) {
			return Optional.empty();
		}
		this.ready.poll();
		return Optional.of(update(this.jobs.get(next.id()).running()));
	}

	public synchronized Job succeeded(String id, String answer, String servedBy) {
		return update(this.jobs.get(id).succeeded(answer, servedBy, this.clock.instant()));
	}

	/**
	 * Back to the queue until the given time without spending an attempt: no provider
	 * could serve.
	 */
	public synchronized Job requeue(String id, Instant notBefore, String error) {
		Job job = update(this.jobs.get(id).waiting(notBefore, error));
		enqueue(id, notBefore);
		return job;
	}

	/**
	 * The call failed: spend an attempt, then wait {@code attemptDelay} or become a dead
	 * letter.
	 */
	public synchronized Job attemptFailed(String id, String error) {
		Instant now = this.clock.instant();
		Job job = update(this.jobs.get(id).attemptFailed(error, this.maxAttempts, now.plus(this.attemptDelay), now));
		if (job.state() == JobState.QUEUED) {
			enqueue(id, job.notBefore());
		}
		return job;
	}

	/** The job can never succeed as it is: no attempt would change that. */
	public synchronized Job deadLetter(String id, String error) {
		return update(this.jobs.get(id).deadLetter(error, this.clock.instant()));
	}

	public synchronized Optional<Job> find(String id) {
		return Optional.ofNullable(this.jobs.get(id));
	}

	public synchronized List<Job> all() {
		return new ArrayList<>(this.jobs.values());
	}

	/** How many jobs are in each state, every state listed. */
	public synchronized Map<JobState, Long> counts() {
		Map<JobState, Long> counts = new EnumMap<>(JobState.class);
		for (JobState state : JobState.values()) {
			counts.put(state, 0L);
		}
		this.jobs.values().forEach((job) -> counts.merge(job.state(), 1L, Long::sum));
		return counts;
	}

	/** Whether every job has succeeded or become a dead letter. */
	public synchronized boolean isSettled() {
		return this.jobs.values().stream().allMatch((job) -> job.state().isSettled());
	}

	private Job update(Job job) {
		this.jobs.put(job.id(), job);
		return job;
	}

	private void enqueue(String id, Instant notBefore) {
		this.ready.add(new Ready(id, notBefore, this.sequence++));
	}

	private record Ready(String id, Instant notBefore, long sequence) {

	}

}
