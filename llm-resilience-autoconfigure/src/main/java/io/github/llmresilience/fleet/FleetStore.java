package io.github.llmresilience.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.breaker.BreakerSettings;
import org.jspecify.annotations.Nullable;

/**
 * Where a fleet keeps its shared state: Redis in this library
 * ({@code io.github.llmresilience.data.redis.RedisFleetStore}). A pod calls it from its
 * own sync thread only, never on a call's path; every time in it is the store's own
 * clock, so the pods' clocks may differ.
 */
public interface FleetStore extends AutoCloseable {

	/**
	 * One round trip: apply the pod's writes, add its counts to the fleet's window,
	 * decide each failure domain (open it when the fleet's rates cross its thresholds),
	 * let the pod probe a domain whose open time has passed when it asks and no other pod
	 * holds the lease, and return the fleet's state.
	 * @param sync what the pod sends
	 * @return the fleet's state after the writes
	 * @throws Exception when the store cannot be reached or does not answer in time
	 */
	View sync(Sync sync) throws Exception;

	/**
	 * Listen for hints that another pod changed something, so that this pod syncs at once
	 * rather than at its next interval. A hint is only a hint: the truth is what
	 * {@link #sync} returns. Reconnects by itself.
	 * @param hint called on each hint, on a thread of the store's
	 */
	void listen(Runnable hint);

	/** Stop listening; the store's connections belong to whoever made them. */
	@Override
	void close();

	/**
	 * What a pod sends on each sync.
	 *
	 * @param pod the pod's id, which names the prober
	 * @param knownOperation the last operator command the pod applied, or {@code -1} for
	 * a new pod, which takes the state as it is
	 * @param window the window the fleet's rates are counted over
	 * @param domains every failure domain of the pod, with what it counted since its last
	 * sync
	 * @param writes gates, parks, locks, operator commands and trial results, in order
	 */
	record Sync(String pod, long knownOperation, Duration window, List<DomainCounts> domains, List<Write> writes) {
	}

	/**
	 * One failure domain's outcomes since the pod's last sync, and the thresholds it is
	 * judged by.
	 *
	 * @param domain the failure domain
	 * @param calls calls that counted (successes and failures, not ignored ones)
	 * @param failures failures among them
	 * @param slow slow calls among them
	 * @param settings the breaker's thresholds and open durations
	 * @param probeInterval the fleet's probe interval, or {@code null}
	 * @param wantsProbe whether this pod has a call waiting to be the domain's trial
	 * @param probeLease how long a won lease lasts
	 * @param spendWindow the index of the pod's current spend window (its start divided
	 * by its length, in epoch milliseconds), or {@code -1} when spend is not judged
	 * @param spendWindowMillis the spend window's length
	 * @param spendCalls answers with usage the pod counted in that window since its last
	 * sync
	 * @param spend their spend (money or tokens, zero or positive)
	 */
	record DomainCounts(String domain, long calls, long failures, long slow, BreakerSettings settings,
			@Nullable Duration probeInterval, boolean wantsProbe, Duration probeLease, long spendWindow,
			long spendWindowMillis, long spendCalls, double spend) {

		/** Counts without spend. */
		public DomainCounts(String domain, long calls, long failures, long slow, BreakerSettings settings,
				@Nullable Duration probeInterval, boolean wantsProbe, Duration probeLease) {
			this(domain, calls, failures, slow, settings, probeInterval, wantsProbe, probeLease, -1, 0, 0, 0);
		}

	}

	/**
	 * One write.
	 *
	 * @param kind what it is
	 * @param subject a quota scope, an account, a failure domain or a chain
	 * @param value the reason of a hold, the breaker status an operator set
	 * ({@code forced-open}, {@code disabled}, {@code closed}), a trial's result
	 * ({@code ok}, {@code failed}), a chain's targets, comma-separated, or the
	 * classification rules, encoded
	 * @param number a hold's duration in milliseconds, or the generation a trial probed
	 */
	record Write(Kind kind, String subject, String value, long number) {

		/** The kinds of write. */
		public enum Kind {

			/** A quota scope gated for {@code number} ms. */
			GATE,
			/** An account parked for {@code number} ms. */
			PARK,
			/** An account locked for {@code number} ms. */
			LOCK,
			/** An operator released a gated scope. */
			RELEASE,
			/** An operator unparked an account. */
			UNPARK,
			/** An operator unlocked an account. */
			UNLOCK,
			/** An operator set a chain's targets. */
			CHAIN,
			/** An operator set a breaker's status. */
			BREAKER,
			/** A prober's trial ended. */
			TRIAL,
			/** A prober gives its lease back unused. */
			UNPROBE,
			/**
			 * An operator edited the classification rules: {@code value} holds them all.
			 */
			RULES

		}

	}

	/**
	 * The fleet's state.
	 *
	 * @param serverMillis the store's clock when it answered
	 * @param operation the last operator command
	 * @param domains each failure domain the pod sent
	 * @param holds the gates, parks and locks in force
	 * @param operations the operator's lifts since the pod's last known one, oldest first
	 * @param chains chains an operator set, by name
	 * @param rules the classification rules an operator set, encoded, or {@code null}
	 * when none was ever set
	 */
	record View(long serverMillis, long operation, List<DomainView> domains, List<Hold> holds,
			List<Operation> operations, Map<String, List<String>> chains, @Nullable String rules) {
	}

	/**
	 * One failure domain as the fleet sees it.
	 *
	 * @param domain the failure domain
	 * @param status {@code closed}, {@code open}, {@code forced-open} or {@code disabled}
	 * @param untilMillis when an open domain lets a trial through (store clock)
	 * @param generation incremented by every change of status
	 * @param openings consecutive openings without a close
	 * @param calls the fleet's calls in the window
	 * @param failures the fleet's failures in the window
	 * @param slow the fleet's slow calls in the window
	 * @param prober the pod holding the probe lease, or empty
	 * @param probeGranted whether this pod just won the lease
	 * @param reason why the status last changed
	 * @param spendWindow the spend window the pod sent, or {@code -1} when it sent none
	 * @param spendCalls the fleet's answers with usage in that window
	 * @param spend their spend
	 */
	record DomainView(String domain, String status, long untilMillis, long generation, int openings, long calls,
			long failures, long slow, String prober, boolean probeGranted, String reason, long spendWindow,
			long spendCalls, double spend) {

		/** A domain's view without spend. */
		public DomainView(String domain, String status, long untilMillis, long generation, int openings, long calls,
				long failures, long slow, String prober, boolean probeGranted, String reason) {
			this(domain, status, untilMillis, generation, openings, calls, failures, slow, prober, probeGranted, reason,
					-1, 0, 0);
		}

	}

	/**
	 * A gate, park or lock in force.
	 *
	 * @param kind {@link Write.Kind#GATE}, {@link Write.Kind#PARK} or
	 * {@link Write.Kind#LOCK}
	 * @param subject the quota scope or account
	 * @param untilMillis its end (store clock)
	 * @param reason why
	 */
	record Hold(Write.Kind kind, String subject, long untilMillis, String reason) {
	}

	/**
	 * An operator's lift, which the pods apply once.
	 *
	 * @param sequence its number
	 * @param kind {@link Write.Kind#RELEASE}, {@link Write.Kind#UNPARK} or
	 * {@link Write.Kind#UNLOCK}
	 * @param subject the quota scope or account
	 */
	record Operation(long sequence, Write.Kind kind, String subject) {
	}

}
