package io.github.llmresilience.benchmarks;

import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.timeout.CoalescingTimer;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The parts of the success path, one at a time, so that the gap between
 * {@link SuccessPathBenchmark#llmResilienceCall()} and bare Resilience4j can be put on
 * lines of code: the per-attempt timeout alarm, and a breaker that has a state-transition
 * listener (Resilience4j then builds an event object for every success).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HotPathPartsBenchmark {

	private static final Runnable NOTHING = () -> {
	};

	private static final CoalescingTimer.Expiry<Object> EXPIRY = (token, owner) -> {
	};

	private static final long THIRTY_SECONDS = TimeUnit.SECONDS.toNanos(30);

	private final Supplier<String> provider = () -> SuccessPathBenchmark.ANSWER;

	private Scheduler scheduler;

	private CoalescingTimer timer;

	private Breaker breaker;

	private Supplier<String> listened;

	private ThrottleGate gate;

	private ThrottleGate.Scope scope;

	private Accounts accounts;

	private Accounts.AccountStatus account;

	@Setup
	public void setUp() {
		this.scheduler = Schedulers.parallel();
		this.timer = new CoalescingTimer(10, TimeUnit.MILLISECONDS);
		Clock clock = Clock.systemUTC();
		this.breaker = new Breakers(clock, new StateChanges(clock)).forDomain("openai/default/global",
				BreakerSettings.defaults(), (error) -> Verdict.of(Outcome.AVAILABILITY));
		CircuitBreaker withListener = CircuitBreaker.ofDefaults("listened");
		withListener.getEventPublisher().onStateTransition((event) -> {
		});
		this.listened = CircuitBreaker.decorateSupplier(withListener, this.provider);
		this.gate = new ThrottleGate(clock, ThrottleSettings.defaults(), new StateChanges(clock));
		this.scope = this.gate.scope("primary/default");
		this.accounts = new Accounts(clock, AccountSettings.defaults(), new StateChanges(clock));
		this.account = this.accounts.account("primary");
	}

	@TearDown
	public void checkStillClosed() {
		this.timer.dispose();
		if (this.breaker.state() != CircuitBreaker.State.CLOSED) {
			throw new IllegalStateException("The breaker left the success path: " + this.breaker);
		}
	}

	/**
	 * What the blocking driver does per attempt to enforce its timeout: schedule an alarm
	 * 30 s out on the Reactor scheduler, then cancel it.
	 */
	@Benchmark
	public Disposable timeoutAlarm() {
		Disposable alarm = this.scheduler.schedule(NOTHING, 30, TimeUnit.SECONDS);
		alarm.dispose();
		return alarm;
	}

	/**
	 * The same alarm as a timed task on the coalescing timer (what a reactive attempt
	 * arms).
	 */
	@Benchmark
	public Disposable timeoutAlarmCoalescingTimer() {
		Disposable alarm = this.timer.schedule(NOTHING, 30, TimeUnit.SECONDS);
		alarm.dispose();
		return alarm;
	}

	/**
	 * What a blocking attempt arms (the default): the calling thread's own alarm on the
	 * coalescing timer, armed with a token and disarmed in place. The deadline is read
	 * here; the engine arms it at the attempt's start, already read.
	 */
	@Benchmark
	public Disposable timeoutAlarmThreadOwn() {
		Disposable alarm = this.timer.arm(this, System.nanoTime() + THIRTY_SECONDS, EXPIRY);
		alarm.dispose();
		return alarm;
	}

	/**
	 * What every call asks before its breaker: is the account usable (not parked, not
	 * locked) and is its quota scope open (not gated)? Neither is, here.
	 */
	@Benchmark
	public boolean accountAndGateChecks() {
		return this.accounts.isUsable(this.account) && this.gate.isReleased(this.scope);
	}

	/** A default breaker, as in the baseline, plus a state-transition listener. */
	@Benchmark
	public String resilience4jWithTransitionListener() {
		return this.listened.get();
	}

	/** The project's breaker of one failure domain: a permit and a recorded success. */
	@Benchmark
	public boolean ourBreakerPermitAndSuccess() {
		long start = System.nanoTime();
		boolean permitted = this.breaker.tryAcquire();
		this.breaker.onSuccess(System.nanoTime() - start);
		return permitted;
	}

}
