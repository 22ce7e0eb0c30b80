package io.github.llmresilience.sample.jobs;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.sample.answers.Answer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.context.SmartLifecycle;

/**
 * Runs queued jobs, a fixed number at a time. A job whose call fails with
 * {@link LlmUnavailableException} goes back to the queue until {@code retryAfter()}
 * without spending an attempt (see {@link WhenUnavailable}); a question the provider
 * rejected ({@link LlmRejectedException}) is a dead letter at once, since asking again
 * would get the same answer; any other failure spends one attempt.
 */
public final class JobWorker implements SmartLifecycle {

	private final JobQueue queue;

	private final Function<String, Mono<Answer>> answerer;

	private final int concurrency;

	private final WhenUnavailable whenUnavailable;

	private final Scheduler scheduler;

	private final Duration idlePoll;

	private volatile boolean running;

	/**
	 * @param answerer answers one question
	 * @param concurrency jobs run at the same time
	 * @param idlePoll how often an idle worker looks for a job that has become due
	 */
	public JobWorker(JobQueue queue, Function<String, Mono<Answer>> answerer, int concurrency,
			WhenUnavailable whenUnavailable, Scheduler scheduler, Duration idlePoll) {
		this.queue = queue;
		this.answerer = answerer;
		this.concurrency = concurrency;
		this.whenUnavailable = whenUnavailable;
		this.scheduler = scheduler;
		this.idlePoll = idlePoll;
	}

	@Override
	public void start() {
		this.running = true;
		for (int i = 0; i < this.concurrency; i++) {
			this.scheduler.schedule(this::work);
		}
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private void work() {
		if (!this.running) {
			return;
		}
		Optional<Job> next = this.queue.take();
		if (next.isEmpty()) {
			this.scheduler.schedule(this::work, this.idlePoll.toNanos(), TimeUnit.NANOSECONDS);
			return;
		}
		Job job = next.get();
		Mono.defer(() -> this.answerer.apply(job.question()))
			.map((answer) -> this.queue.succeeded(job.id(), answer.answer(), answer.servedBy()))
			.switchIfEmpty(Mono.fromSupplier(() -> this.queue.attemptFailed(job.id(), "no answer")))
			.onErrorResume((error) -> Mono.fromSupplier(() -> failed(job, error)))
			// Always hop back to the scheduler: a call that fails at once (breaker open)
			// must not make the next take() a nested call on this stack.
			.doFinally((signal) -> this.scheduler.schedule(this::work))
			.subscribe();
	}

	private Job failed(Job job, Throwable error) {
		if (error instanceof LlmUnavailableException unavailable && this.whenUnavailable == WhenUnavailable.REQUEUE) {
			return this.queue.requeue(job.id(), unavailable.retryAfter(),
					"ai_unavailable: no target could serve; retry after " + unavailable.retryAfter());
		}
		if (error instanceof LlmRejectedException rejected) {
			return this.queue.deadLetter(job.id(),
					"rejected by " + rejected.target() + ": " + rejected.verdict().outcome()
							+ rejected.verdict().errorType().map((type) -> " " + type).orElse(""));
		}
		return this.queue.attemptFailed(job.id(), describe(error));
	}

	private static String describe(Throwable error) {
		if (error instanceof LlmUnavailableException) {
			return "ai_unavailable: no target could serve";
		}
		return error.getClass().getSimpleName() + ((error.getMessage() != null) ? ": " + error.getMessage() : "");
	}

}
