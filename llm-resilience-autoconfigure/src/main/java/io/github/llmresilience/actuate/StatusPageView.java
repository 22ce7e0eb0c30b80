package io.github.llmresilience.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.state.ChainState;
import io.github.llmresilience.state.ResilienceState;
import io.github.llmresilience.state.TargetState;
import io.github.llmresilience.state.TargetState.AccountState;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.state.TargetState.TimeoutState;
import io.github.llmresilience.traffic.TrafficHistory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What the status page draws, built from one {@link ResilienceState} snapshot: the chains
 * as ordered targets and which one serves now, every target's guards with their
 * thresholds and countdowns, its recent traffic, and the recent state changes. Like the
 * snapshot, it never holds a key or a base URL. Countdowns are in milliseconds from
 * {@code at}, so the page needs no clock of its own.
 *
 * @param at when the snapshot was taken
 * @param chains every chain
 * @param targets every target, in configuration order
 * @param events the recent state changes, newest first
 * @param fleet the fleet's connection, or {@code null} when the application runs no fleet
 * mode (the page then hides its fleet panel)
 */
public record StatusPageView(Instant at, List<Chain> chains, List<Target> targets, List<Event> events,
		@Nullable Fleet fleet) implements OperationResponseBody {

	/** Most state changes the page lists. */
	static final int MAX_EVENTS = 50;

	static StatusPageView of(ResilienceState state, List<StateChange> changes, @Nullable TrafficHistory traffic,
			@Nullable Fleet fleet) {
		Instant at = state.at();
		List<Chain> chains = new ArrayList<>();
		for (ChainState chain : state.chains().values()) {
			chains.add(Chain.of(chain, state, at));
		}
		List<Target> targets = new ArrayList<>();
		for (TargetState target : state.targets().values()) {
			targets
				.add(Target.of(target, at, (traffic != null) ? Traffic.of(traffic.window(target.name(), at)) : null));
		}
		List<Event> events = new ArrayList<>();
		for (StateChange change : changes) {
			if (events.size() == MAX_EVENTS) {
				break;
			}
			events.add(new Event(change.at(), change.kind().tag(), change.subject(), change.detail(), change.until()));
		}
		return new StatusPageView(at, chains, targets, events, fleet);
	}

	/** Milliseconds from {@code at} to {@code until}; {@code null} when none is left. */
	static @Nullable Long left(@Nullable Instant until, Instant at) {
		return (until != null && until.isAfter(at)) ? Duration.between(at, until).toMillis() : null;
	}

	/**
	 * One chain.
	 *
	 * @param name the chain
	 * @param links its targets in the order they are tried
	 * @param serving the target a call would go to now (the first usable one), or
	 * {@code null} when none can serve
	 * @param edited whether an operator changed its targets
	 */
	public record Chain(String name, List<Link> links, @Nullable String serving, boolean edited) {

		static Chain of(ChainState chain, ResilienceState state, Instant at) {
			List<Link> links = new ArrayList<>();
			String serving = null;
			for (String name : chain.targets()) {
				TargetState target = state.targets().get(name);
				if (target == null) {
					continue;
				}
				if (serving != null) {
					links.add(new Link(name, "standby", "after " + serving, null));
				}
				else if (target.usable()) {
					serving = name;
					links.add(new Link(name, "serving", null, null));
				}
				else {
					links.add(skipped(target, at));
				}
			}
			return new Chain(chain.name(), links, serving, chain.edited());
		}

		private static Link skipped(TargetState target, Instant at) {
			AccountState account = target.account();
			if (account.lockedUntil() != null) {
				return new Link(target.name(), "skipped",
						"account " + account.name() + " locked" + reason(account.lockReason()),
						left(account.lockedUntil(), at));
			}
			if (account.parkedUntil() != null) {
				return new Link(target.name(), "skipped",
						"account " + account.name() + " parked" + reason(account.parkReason()),
						left(account.parkedUntil(), at));
			}
			if (target.scope().gatedUntil() != null) {
				return new Link(target.name(), "skipped", "scope " + target.scope().key() + " gated (rate limited)",
						left(target.scope().gatedUntil(), at));
			}
			BreakerState breaker = target.breaker();
			String why = switch (breaker.status()) {
				case OPEN -> "breaker open";
				case FORCED_OPEN -> "breaker held open by an operator";
				case HALF_OPEN -> "breaker half-open, its trial calls in flight";
				default -> "breaker " + breaker.status().name().toLowerCase(Locale.ROOT);
			};
			return new Link(target.name(), "skipped", why, left(breaker.availableAt(), at));
		}

		private static String reason(@Nullable String reason) {
			return (reason != null) ? " (" + reason + ")" : "";
		}

	}

	/**
	 * One target's place in a chain.
	 *
	 * @param target the target
	 * @param role {@code serving}, {@code skipped} (a guard refuses it now) or
	 * {@code standby} (a target before it serves)
	 * @param why why it is skipped or on standby, or {@code null}
	 * @param millisLeft how long the guard that skips it holds, or {@code null}
	 */
	public record Link(String target, String role, @Nullable String why, @Nullable Long millisLeft) {

	}

	/**
	 * One target.
	 *
	 * @param name the target
	 * @param provider its provider id
	 * @param model its model
	 * @param region its region
	 * @param usable whether a call could be sent to it now
	 * @param breaker its failure domain's breaker
	 * @param gate its quota scope's gate
	 * @param account its account's park and lock
	 * @param attemptTimeout its attempt timeout
	 * @param firstTokenTimeout its time-to-first-token timeout
	 * @param traffic its recent traffic, or {@code null} when none is kept
	 */
	public record Target(String name, String provider, String model, String region, boolean usable, Breaker breaker,
			Gate gate, Account account, Timeout attemptTimeout, Timeout firstTokenTimeout, @Nullable Traffic traffic) {

		static Target of(TargetState target, Instant at, @Nullable Traffic traffic) {
			return new Target(target.name(), target.provider(), target.model(), target.region(), target.usable(),
					Breaker.of(target.breaker(), at),
					new Gate(target.scope().key(), left(target.scope().gatedUntil(), at)),
					Account.of(target.account(), at), Timeout.of(target.attemptTimeout()),
					Timeout.of(target.firstTokenTimeout()), traffic);
		}

	}

	/**
	 * A failure domain's breaker against its thresholds.
	 *
	 * @param domain the failure domain
	 * @param state {@code CLOSED}, {@code OPEN}, {@code HALF_OPEN}, {@code FORCED_OPEN},
	 * {@code DISABLED} or {@code METRICS_ONLY}
	 * @param failureRate the failure rate in percent, -1 until {@code minimumCalls} are
	 * in the window
	 * @param failureRateThreshold the failure rate that opens it
	 * @param slowCallRate the slow-call rate in percent, -1 until {@code minimumCalls}
	 * are in the window
	 * @param slowCallRateThreshold the slow-call rate that opens it
	 * @param windowCalls the calls in its sliding window
	 * @param minimumCalls the calls needed before the rates count
	 * @param windowSize the sliding window's size
	 * @param notPermittedCalls calls refused while open
	 * @param millisLeft for an open breaker, how long until a trial call goes through
	 */
	public record Breaker(String domain, String state, float failureRate, float failureRateThreshold,
			float slowCallRate, float slowCallRateThreshold, int windowCalls, int minimumCalls, int windowSize,
			long notPermittedCalls, @Nullable Long millisLeft) {

		static Breaker of(BreakerState breaker, Instant at) {
			BreakerSettings settings = breaker.settings();
			return new Breaker(breaker.domain(), breaker.status().name(), breaker.failureRate(),
					settings.failureRateThreshold(), breaker.slowCallRate(), settings.slowCallRateThreshold(),
					breaker.bufferedCalls(), settings.minimumCalls(), settings.slidingWindowSize(),
					breaker.notPermittedCalls(), left(breaker.availableAt(), at));
		}

	}

	/**
	 * A quota scope's gate.
	 *
	 * @param scope the quota scope
	 * @param millisLeft how long it stays gated, or {@code null} when it takes calls
	 */
	public record Gate(String scope, @Nullable Long millisLeft) {

	}

	/**
	 * An account's park or lock.
	 *
	 * @param name the account
	 * @param state {@code ok}, {@code parked} or {@code locked}
	 * @param reason why, or {@code null}
	 * @param millisLeft how long it lasts, or {@code null}
	 */
	public record Account(String name, String state, @Nullable String reason, @Nullable Long millisLeft) {

		static Account of(AccountState account, Instant at) {
			if (account.lockedUntil() != null) {
				return new Account(account.name(), "locked", account.lockReason(), left(account.lockedUntil(), at));
			}
			if (account.parkedUntil() != null) {
				return new Account(account.name(), "parked", account.parkReason(), left(account.parkedUntil(), at));
			}
			return new Account(account.name(), "ok", null, null);
		}

	}

	/**
	 * A timeout as measured.
	 *
	 * @param currentMillis the timeout in force
	 * @param configuredMillis the configured ceiling
	 * @param p99Millis the 99th percentile of recent calls
	 * @param samples calls measured
	 * @param measured whether the timeout in force comes from measurement
	 * @param backedOff whether a recent timeout holds it above the measured value
	 */
	public record Timeout(long currentMillis, long configuredMillis, long p99Millis, long samples, boolean measured,
			boolean backedOff) {

		static Timeout of(TimeoutState timeout) {
			return new Timeout(timeout.current().toMillis(), timeout.configured().toMillis(), timeout.p99().toMillis(),
					timeout.samples(), timeout.measured(), timeout.backedOff());
		}

	}

	/**
	 * A target's traffic, one element per second, oldest first.
	 *
	 * @param from the first second
	 * @param requests requests sent
	 * @param failures attempts that failed on the provider's side
	 * @param rejections attempts the provider refused as the caller's fault
	 * @param failFasts calls that passed the target over without a request
	 */
	public record Traffic(Instant from, int[] requests, int[] failures, int[] rejections, int[] failFasts) {

		static Traffic of(TrafficHistory.Window window) {
			return new Traffic(window.from(), window.requests(), window.failures(), window.rejections(),
					window.failFasts());
		}

	}

	/**
	 * One state change.
	 *
	 * @param at when it happened
	 * @param kind what happened, such as {@code breaker-opened}
	 * @param subject a failure domain, quota scope, account or chain
	 * @param detail why
	 * @param until when the subject may serve again, or {@code null}
	 */
	public record Event(Instant at, String kind, String subject, String detail, @Nullable Instant until) {

	}

	/**
	 * Fleet mode's view; {@code null} without fleet mode.
	 *
	 * @param connected whether this pod reaches the fleet's store
	 * @param prober the pods that hold a probe lease, each with its failure domain, or
	 * {@code null} when none does
	 */
	public record Fleet(boolean connected, @Nullable String prober) {

	}

}
