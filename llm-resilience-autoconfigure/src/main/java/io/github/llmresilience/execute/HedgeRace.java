package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver.HedgeResult;
import io.github.llmresilience.hedge.HedgeBudget;
import io.github.llmresilience.hedge.Hedges;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.Context;

/**
 * One hedged call: the call's walk (the primary) raced against a second walk (the hedge)
 * over the chain's later targets of other failure domains, usable now. Beside the walk,
 * not in it: each walk is a {@link ChainRun} of its own, driven as any call is, with its
 * own breaker permits, pool draws and settlement; this only starts the hedge and picks
 * the winner. A stream's race is to its first element; a reactive call's, to its answer.
 *
 * <p>
 * Each attempt of the primary arms a timer at its delay
 * ({@link io.github.llmresilience.hedge.HedgingSettings#delayNanos}); an attempt that
 * ends before it fires leaves the walk to go on unchanged (retry, failover), and the next
 * attempt arms its own. When it fires with the attempt still in flight, at most once per
 * call, a hedge goes to the first such target whose timeout (a stream's first-token one)
 * still fits before the call's deadline, if the chain's hedge budget and that target's
 * retry budget both allow, with the primary's idempotency key. The first walk to emit (an
 * element, or completion) wins and the other is cancelled: its attempt is settled as
 * cancelled, its permit given back unrecorded. A walk that fails while the other is still
 * in flight leaves the call to the other; when both fail, the call fails with the
 * primary's error.
 *
 * <p>
 * The call's observers hear of the call's end once: what each walk tells of its end
 * (served, unavailable, rejected) is told at once by the winner, held while the race is
 * open, and dropped for the loser; the hedge's end is timed from the call's start, at its
 * target's position in the chain. The hedge's attempts are told to the shared observers
 * (metrics), not to the call's trace, which follows one attempt at a time.
 *
 * @param <T> the element type
 */
final class HedgeRace<T> extends Flux<T> implements Subscription {

	private final CallContext context;

	private final Hedges hedges;

	private final HedgeBudget budget;

	private final Scheduler scheduler;

	private final String chain;

	/** The chain's targets as the call found them. */
	private final TargetRuntime[] targets;

	private final CallOptions options;

	/** Whether the call is a stream: raced to its first element, timed to it. */
	private final boolean streaming;

	/**
	 * How a walk is driven: the engine's walk of a run, which tells the consumer of each
	 * attempt it starts.
	 */
	private final BiFunction<ChainRun, Consumer<Attempt>, Flux<T>> walk;

	/** The engine's shared observers. */
	private final CallObservers shared;

	/** The shared observers and the call's trace: what an unhedged call tells. */
	private final CallObservers full;

	private final ChainRun primaryRun;

	private final Side primary = new Side();

	// Guarded by this, but for the volatile fields read without it.

	private @Nullable CoreSubscriber<? super T> actual;

	private @Nullable Side hedge;

	private volatile @Nullable Side winner;

	private boolean hedgeFailed;

	/** The primary's walk ended, told so with no hedge in flight: none is sent now. */
	private boolean primaryEnding;

	private boolean done;

	private boolean cancelled;

	private long requested;

	private @Nullable Disposable timer;

	/** The primary's attempt the timer was armed for, and its target. */
	private @Nullable Attempt current;

	private @Nullable TargetRuntime currentTarget;

	/** The primary's error, held while the hedge is in flight. */
	private @Nullable Throwable primaryError;

	/** What the primary told of the call's end while the race was open. */
	private final List<Runnable> primaryHeld = new ArrayList<>(2);

	/** What the hedge told of the call's end while the race was open. */
	private final List<Runnable> hedgeHeld = new ArrayList<>(2);

	/** The target of the hedge's latest attempt. */
	private volatile @Nullable Target hedgeTarget;

	HedgeRace(CallContext context, Hedges hedges, Scheduler scheduler, String chain, TargetRuntime[] targets,
			CallOptions options, boolean streaming, BiFunction<ChainRun, Consumer<Attempt>, Flux<T>> walk,
			@Nullable CallTrace trace) {
		this.context = context;
		this.hedges = hedges;
		this.budget = hedges.budget(chain);
		this.scheduler = scheduler;
		this.chain = chain;
		this.targets = targets;
		this.options = options;
		this.streaming = streaming;
		this.walk = walk;
		this.shared = context.observer();
		this.full = this.shared.traced(trace);
		this.primaryRun = new ChainRun(context, chain, targets, options, streaming,
				CallObservers.of(new PrimaryView(), trace));
	}

	/**
	 * Whether a chain's calls can be hedged at all: it has targets in two failure
	 * domains.
	 */
	static boolean hedgeable(TargetRuntime[] targets) {
		for (TargetRuntime target : targets) {
			if (target.breaker() != targets[0].breaker()) {
				return true;
			}
		}
		return false;
	}

	/** The call's walk, which says how the call ended when no target served it. */
	ChainRun primaryRun() {
		return this.primaryRun;
	}

	@Override
	public void subscribe(CoreSubscriber<? super T> actual) {
		this.actual = actual;
		this.budget.onCall(this.context.now());
		actual.onSubscribe(this);
		Flux.defer(() -> this.walk.apply(this.primaryRun, this::attemptStarted)).subscribe(this.primary);
	}

	// Hedge ----------------------------------------------------------------------------

	/** An attempt of the primary starts: arm the hedge's timer for it. */
	private void attemptStarted(Attempt attempt) {
		TargetRuntime target = runtime(attempt.target());
		if (target == null) {
			return;
		}
		long delay = this.hedges.settings().delayNanos(target.timeout(this.streaming));
		Disposable old;
		synchronized (this) {
			if (this.hedge != null || this.winner != null || this.done || this.cancelled || this.primaryEnding) {
				return;
			}
			this.current = attempt;
			this.currentTarget = target;
			old = this.timer;
			this.timer = this.scheduler.schedule(() -> fire(attempt), delay, TimeUnit.NANOSECONDS);
		}
		if (old != null) {
			old.dispose();
		}
	}

	/**
	 * The delay has passed: send the hedge if the attempt is still waiting for its first
	 * element, a target of another domain can take it, the deadline holds a whole attempt
	 * there and the budgets allow.
	 */
	private void fire(Attempt attempt) {
		TargetRuntime[] candidates;
		long left;
		Side hedge;
		synchronized (this) {
			TargetRuntime target = this.currentTarget;
			if (attempt != this.current || target == null || this.hedge != null || this.winner != null || this.done
					|| this.cancelled || this.primaryEnding || attempt.state() != Attempt.State.IN_FLIGHT) {
				return;
			}
			candidates = candidates(target);
			if (candidates.length == 0) {
				return;
			}
			left = attempt.timeLeft().toNanos() - (this.context.now() - attempt.startNanos());
			if (left < candidates[0].timeout(this.streaming).current().toNanos()) {
				return;
			}
			// A hedge is load like a retry of the late attempt: it needs its target's
			// retry
			// budget's consent as well, which counts that target's calls (the hedge
			// target's own counts few first attempts, so its budget would allow only its
			// minimum), and is spent when that target is failing.
			if (!this.budget.tryHedge() || !target.budget().tryRetry()) {
				return;
			}
			hedge = new Side();
			this.hedge = hedge;
			this.hedgeTarget = candidates[0].target();
		}
		long offset = this.primaryRun.elapsedNanos();
		CallOptions options = this.options.withIdempotencyKey(attempt.idempotencyKey())
			.withDeadline(Duration.ofNanos(left));
		ChainRun run = new ChainRun(this.context, this.chain, candidates, options, this.streaming,
				CallObservers.of(new HedgeView(offset), null));
		this.full.onHedge(this.chain, candidates[0].target(), HedgeResult.SENT);
		Flux.defer(() -> this.walk.apply(run, (hedged) -> this.hedgeTarget = hedged.target())).subscribe(hedge);
	}

	/**
	 * The chain's targets after the primary's, in other failure domains than its, usable
	 * now (account, scope, breaker; the admit path checks again and takes the permit).
	 */
	private TargetRuntime[] candidates(TargetRuntime primary) {
		int position = position(primary.target());
		List<TargetRuntime> candidates = new ArrayList<>(this.targets.length);
		for (int i = position + 1; i < this.targets.length; i++) {
			TargetRuntime target = this.targets[i];
			if (target.breaker() != primary.breaker() && target.isUsable()) {
				candidates.add(target);
			}
		}
		return candidates.toArray(TargetRuntime[]::new);
	}

	private int position(Target target) {
		for (int i = 0; i < this.targets.length; i++) {
			if (this.targets[i].target() == target) {
				return i;
			}
		}
		return -1;
	}

	private @Nullable TargetRuntime runtime(Target target) {
		int position = position(target);
		return (position >= 0) ? this.targets[position] : null;
	}

	// Race -----------------------------------------------------------------------------

	/**
	 * A walk emitted first: it wins, unless the other did before or the call is over.
	 * @return the winner, or {@code null} when the call is over
	 */
	private @Nullable Side decide(Side side) {
		Side loser;
		Attempt lost = null;
		TargetRuntime lostTarget = null;
		Disposable timer;
		List<Runnable> flush;
		synchronized (this) {
			Side winner = this.winner;
			if (winner != null) {
				return winner;
			}
			if (this.done || this.cancelled) {
				return null;
			}
			this.winner = side;
			timer = this.timer;
			this.timer = null;
			// The winner's end is the call's; the loser's is not.
			flush = takeHeld((side == this.primary) ? this.primaryHeld : this.hedgeHeld);
			this.primaryHeld.clear();
			this.hedgeHeld.clear();
			loser = (side != this.primary) ? this.primary : this.hedgeFailed ? null : this.hedge;
			if (side != this.primary) {
				lost = this.current;
				lostTarget = this.currentTarget;
			}
		}
		if (timer != null) {
			timer.dispose();
		}
		if (loser != null) {
			if (lost != null && lostTarget != null && lost.state() == Attempt.State.IN_FLIGHT) {
				// The cancelled attempt took at least this long: a censored sample, as a
				// timeout is, so that the first tokens cut by hedges still pull the
				// percentile the delay is read from.
				lostTarget.timeout(this.streaming).record(this.context.now() - lost.startNanos());
			}
			loser.cancel();
			Target hedged = this.hedgeTarget;
			if (hedged != null) {
				this.full.onHedge(this.chain, hedged, (side == this.primary) ? HedgeResult.CANCELLED : HedgeResult.WON);
			}
		}
		if (flush != null) {
			flush.forEach(Runnable::run);
		}
		return side;
	}

	/** A walk failed: the call's end when it won or the other is out of the race too. */
	private void failed(Side side, Throwable error) {
		Throwable forward = null;
		List<Runnable> flush = null;
		Disposable timer = null;
		synchronized (this) {
			if (this.winner == side) {
				this.done = true;
				forward = error;
			}
			else if (this.winner != null || this.done || this.cancelled) {
				return;
			}
			else if (side == this.primary) {
				timer = this.timer;
				this.timer = null;
				if (this.hedge != null && !this.hedgeFailed) {
					// The hedge may still serve the call.
					this.primaryError = error;
				}
				else {
					this.done = true;
					forward = error;
					flush = takeHeld(this.primaryHeld);
				}
			}
			else {
				this.hedgeFailed = true;
				this.hedgeHeld.clear();
				flush = takeHeld(this.primaryHeld);
				if (this.primaryError != null) {
					this.done = true;
					forward = this.primaryError;
				}
			}
		}
		if (timer != null) {
			timer.dispose();
		}
		if (flush != null) {
			flush.forEach(Runnable::run);
		}
		if (forward != null) {
			subscriber().onError(forward);
		}
	}

	private static @Nullable List<Runnable> takeHeld(List<Runnable> held) {
		if (held.isEmpty()) {
			return null;
		}
		List<Runnable> taken = new ArrayList<>(held);
		held.clear();
		return taken;
	}

	private CoreSubscriber<? super T> subscriber() {
		CoreSubscriber<? super T> actual = this.actual;
		if (actual == null) {
			throw new IllegalStateException("Not subscribed");
		}
		return actual;
	}

	@Override
	public void request(long n) {
		if (!Operators.validate(n)) {
			return;
		}
		Subscription first;
		Subscription second = null;
		synchronized (this) {
			this.requested = Operators.addCap(this.requested, n);
			Side winner = this.winner;
			if (winner != null) {
				first = winner.upstream;
			}
			else {
				first = this.primary.upstream;
				second = (this.hedge != null) ? this.hedge.upstream : null;
			}
		}
		if (first != null) {
			first.request(n);
		}
		if (second != null) {
			second.request(n);
		}
	}

	@Override
	public void cancel() {
		Side hedge;
		boolean hedgePending;
		Disposable timer;
		synchronized (this) {
			if (this.done || this.cancelled) {
				return;
			}
			this.cancelled = true;
			timer = this.timer;
			this.timer = null;
			hedge = this.hedge;
			hedgePending = hedge != null && this.winner == null && !this.hedgeFailed;
		}
		if (timer != null) {
			timer.dispose();
		}
		this.primary.cancel();
		if (hedge != null) {
			hedge.cancel();
		}
		Target hedged = this.hedgeTarget;
		if (hedgePending && hedged != null) {
			this.full.onHedge(this.chain, hedged, HedgeResult.CANCELLED);
		}
	}

	/** One walk's subscriber. */
	private final class Side implements CoreSubscriber<T> {

		private volatile @Nullable Subscription upstream;

		@Override
		public Context currentContext() {
			return subscriber().currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			boolean lost;
			long requested;
			synchronized (HedgeRace.this) {
				Side winner = HedgeRace.this.winner;
				lost = HedgeRace.this.cancelled || HedgeRace.this.done || (winner != null && winner != this);
				this.upstream = subscription;
				requested = HedgeRace.this.requested;
			}
			if (lost) {
				subscription.cancel();
			}
			else if (requested > 0) {
				subscription.request(requested);
			}
		}

		@Override
		public void onNext(T value) {
			Side winner = HedgeRace.this.winner;
			if (winner == null) {
				winner = decide(this);
			}
			if (winner == this) {
				subscriber().onNext(value);
			}
		}

		@Override
		public void onError(Throwable error) {
			failed(this, error);
		}

		@Override
		public void onComplete() {
			Side winner = HedgeRace.this.winner;
			if (winner == null) {
				// An empty answer is an answer.
				winner = decide(this);
			}
			if (winner == this) {
				synchronized (HedgeRace.this) {
					HedgeRace.this.done = true;
				}
				subscriber().onComplete();
			}
		}

		void cancel() {
			Subscription upstream = this.upstream;
			if (upstream != null) {
				upstream.cancel();
			}
		}

	}

	// What each walk tells -------------------------------------------------------------

	/**
	 * What a walk tells of its attempts, passed on as it is: each view decides only what
	 * becomes of the call's end.
	 */
	private abstract static class Passing implements CallObserver {

		private final CallObserver to;

		Passing(CallObserver to) {
			this.to = to;
		}

		@Override
		public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
			this.to.onAttempt(chain, target, verdict, nanos);
		}

		@Override
		public void onAnswer(String chain, Target target, Answer answer) {
			this.to.onAnswer(chain, target, answer);
		}

		@Override
		public void onRetry(String chain, Target target, RetryResult result) {
			this.to.onRetry(chain, target, result);
		}

		@Override
		public void onBackoff(String chain, Target target, long nanos) {
			this.to.onBackoff(chain, target, nanos);
		}

		@Override
		public void onSkipped(String chain, Target target, ChainStep.Skip why) {
			this.to.onSkipped(chain, target, why);
		}

		@Override
		public void onPoolWait(String chain, String pool, long nanos) {
			this.to.onPoolWait(chain, pool, nanos);
		}

	}

	/**
	 * The primary's observer: its attempts told as an unhedged call's; its end told at
	 * once when it won or no hedge is in flight, held while the race is open (told when
	 * it wins or the hedge fails), dropped when the hedge won.
	 */
	private final class PrimaryView extends Passing {

		PrimaryView() {
			super(HedgeRace.this.full);
		}

		/**
		 * Tell the call's end now, hold it, or drop it; told now with no hedge in flight,
		 * it ends the call, and no hedge is sent after it.
		 */
		private void end(Runnable event) {
			synchronized (HedgeRace.this) {
				Side winner = HedgeRace.this.winner;
				if (winner != null && winner != HedgeRace.this.primary) {
					return;
				}
				if (winner == null && HedgeRace.this.hedge != null && !HedgeRace.this.hedgeFailed) {
					HedgeRace.this.primaryHeld.add(event);
					return;
				}
				if (winner == null) {
					HedgeRace.this.primaryEnding = true;
				}
			}
			event.run();
		}

		@Override
		public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure,
				long nanos) {
			HedgeRace.this.full.onDegraded(chain, unavailable, failure, nanos);
		}

		@Override
		public void onServed(String chain, Target target, int position, long nanos) {
			end(() -> HedgeRace.this.full.onServed(chain, target, position, nanos));
		}

		@Override
		public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
			end(() -> HedgeRace.this.full.onUnavailable(chain, exception, nanos));
		}

		@Override
		public void onRejected(String chain, Target target, Verdict verdict, long nanos) {
			end(() -> HedgeRace.this.full.onRejected(chain, target, verdict, nanos));
		}

		@Override
		public void onCallEnded(String chain, long nanos, long backoffNanos) {
			end(() -> HedgeRace.this.full.onCallEnded(chain, nanos, backoffNanos));
		}

	}

	/**
	 * The hedge's observer: its attempts told to the shared observers; its end, timed
	 * from the call's start at the target's position in the chain, told when it won, held
	 * while the race is open, dropped when it lost or failed.
	 */
	private final class HedgeView extends Passing {

		/** How long the call had run when the hedge started. */
		private final long offset;

		HedgeView(long offset) {
			super(HedgeRace.this.shared);
			this.offset = offset;
		}

		private void end(Runnable event) {
			synchronized (HedgeRace.this) {
				Side hedge = HedgeRace.this.hedge;
				Side winner = HedgeRace.this.winner;
				if (winner == null && hedge != null && !HedgeRace.this.hedgeFailed) {
					HedgeRace.this.hedgeHeld.add(event);
					return;
				}
				if (winner == null || winner != hedge) {
					return;
				}
			}
			event.run();
		}

		@Override
		public void onServed(String chain, Target target, int position, long nanos) {
			long callNanos = nanos + this.offset;
			end(() -> HedgeRace.this.full.onServed(chain, target, position(target), callNanos));
		}

		@Override
		public void onRejected(String chain, Target target, Verdict verdict, long nanos) {
			long callNanos = nanos + this.offset;
			end(() -> HedgeRace.this.full.onRejected(chain, target, verdict, callNanos));
		}

		@Override
		public void onCallEnded(String chain, long nanos, long backoffNanos) {
			long callNanos = nanos + this.offset;
			end(() -> HedgeRace.this.full.onCallEnded(chain, callNanos, backoffNanos));
		}

	}

}
