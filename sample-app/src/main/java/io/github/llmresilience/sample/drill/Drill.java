package io.github.llmresilience.sample.drill;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.answers.Answer;
import io.github.llmresilience.sample.answers.Answers;
import io.github.llmresilience.sample.jobs.Job;
import io.github.llmresilience.sample.jobs.JobQueue;
import io.github.llmresilience.sample.jobs.JobState;
import io.github.llmresilience.sample.jobs.JobWorker;
import io.github.llmresilience.sample.jobs.WhenUnavailable;
import io.github.llmresilience.sample.simulator.Mode;
import io.github.llmresilience.sample.simulator.ModeSetting;
import io.github.llmresilience.sample.simulator.SimulatedProviders;
import io.github.llmresilience.sample.simulator.TargetStats;
import io.github.llmresilience.state.ResilienceState;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Runs a drill against the embedded simulator: its own job queue and worker, a target
 * that fails for a while, and the counts that tell what the resilience did.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
public class Drill {

	private static final Duration POLL = Duration.ofMillis(50);

	private final SimulatedProviders simulator;

	private final Answers answers;

	private final LlmResilience resilience;

	private final Clock clock;

	private final DrillClients clients;

	public Drill(SimulatedProviders simulator, Answers answers, LlmResilience resilience, Clock clock,
			DrillClients clients) {
		this.simulator = simulator;
		this.answers = answers;
		this.resilience = resilience;
		this.clock = clock;
		this.clients = clients;
	}

	/** Run a drill to its end with the answers service's client and report. */
	public DrillReport run(DrillPlan plan) {
		return run(plan, DrillClient.WEBCLIENT);
	}

	/**
	 * Run a drill to its end and report; blocks for up to the plan's limit.
	 * @param plan the drill
	 * @param client how the jobs call the providers
	 */
	public DrillReport run(DrillPlan plan, DrillClient client) {
		this.simulator.reset();
		if (!plan.breaker()) {
			// The breaker's off switch: every call is let through, nothing is recorded.
			this.resilience.operator().disable(plan.target());
		}
		JobQueue queue = new JobQueue(this.clock, plan.maxAttempts(), plan.attemptDelay());
		Function<String, Mono<Answer>> answerer = switch (client) {
			case WEBCLIENT -> (question) -> this.answers.answer(plan.chain(), question);
			case SPRING_AI -> this.clients.chain(plan.chain());
			case SPRING_AI_PLAIN -> this.clients.plain(plan.target());
			case LANGCHAIN4J -> this.clients.langChain4jChain(plan.chain());
			case LANGCHAIN4J_PLAIN -> this.clients.langChain4jPlain(plan.target());
		};
		// Plain Spring AI or LangChain4j has no breaker behind it: each failure spends an
		// attempt.
		boolean requeue = plan.breaker() && client != DrillClient.SPRING_AI_PLAIN
				&& client != DrillClient.LANGCHAIN4J_PLAIN;
		JobWorker worker = new JobWorker(queue, answerer, plan.concurrency(),
				requeue ? WhenUnavailable.REQUEUE : WhenUnavailable.SPEND_ATTEMPT, Schedulers.parallel(),
				Duration.ofMillis(20));
		Mode mode = switch (plan.kind()) {
			case THROTTLE -> Mode.THROTTLE;
			case QUOTA -> Mode.QUOTA;
			case HANG -> Mode.HANG;
			case OUTAGE, OUTAGE_FAILOVER -> Mode.OUTAGE;
		};
		Instant start = this.clock.instant();
		Instant incidentEnd = start.plus(plan.incident());
		long deadline = System.nanoTime() + plan.limit().toNanos();
		this.simulator.mode(plan.target(), ModeSetting.of(mode).withRetryAfterSeconds(plan.retryAfterSeconds()),
				plan.incident());
		try {
			worker.start();
			submit(queue, plan);
			awaitSettled(queue, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		}
		finally {
			worker.stop();
			if (!plan.breaker()) {
				this.resilience.operator().close(plan.target());
			}
		}
		Duration elapsed = Duration.between(start, this.clock.instant());
		TargetStats stats = this.simulator.stats().target(plan.target());
		TargetStats.ModeStats during = stats.mode(mode);
		Map<String, Long> servedBy = new TreeMap<>();
		Map<String, Long> servedDuring = new TreeMap<>();
		for (Job job : queue.all()) {
			if (job.state() == JobState.SUCCEEDED) {
				servedBy.merge(job.servedBy(), 1L, Long::sum);
				if (job.finishedAt().isBefore(incidentEnd)) {
					servedDuring.merge(job.servedBy(), 1L, Long::sum);
				}
			}
		}
		ResilienceState state = this.resilience.state();
		return new DrillReport(plan, client, state.chain(plan.chain()).targets(),
				state.target(plan.target()).breaker().settings().minimumCalls(), during.requests(), during.statuses(),
				stats.insideRetryAfter(), queue.counts(), servedBy, servedDuring, elapsed);
	}

	private static void submit(JobQueue queue, DrillPlan plan) {
		if (plan.jobInterval().isZero()) {
			for (int i = 1; i <= plan.jobs(); i++) {
				queue.submit(question(i));
			}
			return;
		}
		// Jobs keep arriving while the target fails, as a real service's would.
		Flux.interval(Duration.ZERO, plan.jobInterval())
			.take(plan.jobs())
			.doOnNext((i) -> queue.submit(question(i.intValue() + 1)))
			.blockLast();
	}

	private static void awaitSettled(JobQueue queue, Duration limit) {
		Flux.interval(POLL).filter((tick) -> queue.isSettled()).next().timeout(limit, Mono.empty()).block();
	}

	private static String question(int n) {
		return "Question " + n + " of the drill: summarise yesterday's support tickets.";
	}

}
