package io.github.llmresilience.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.llmresilience.breaker.BreakerSettings;
import org.jspecify.annotations.Nullable;

/**
 * Where a fleet keeps its shared state: Redis in this library
 * ({@code io.github.llmresilience.data.redis.RedisFleetStore}). A pod calls it from its
 * own sync thread only, never on a call's path; every time in it is the store's own
 * clock, so the pods' clocks may differ.
 *
 * <p>
 * A sync may reach the store after the pod stopped waiting for it (a stalled or slow
 * store runs what is queued on its connection when it resumes), and the pod sends what it
 * could not confirm again. A store therefore applies each sync so that running it twice,
 * or late, changes nothing more than running it once: counts come in numbered
 * {@linkplain Batch batches} that the store applies once per pod, and every end of a
 * gate, park, lock or opening is an absolute time on the store's clock.
 */
public interface FleetStore extends AutoCloseable {

	/**
	 * Send one round trip: apply the pod's batches (each once) and writes, decide each
	 * failure domain (open it when the fleet's rates cross its thresholds), let the pod
	 * probe a domain when it asks and no other live pod holds the lease, and answer the
	 * fleet's state. Returns at once, or within the store's command timeout: the pod
	 * waits for the answer at most {@code fleet.command-timeout}, and reads an answer
	 * that comes later only for the batches it acknowledges.
	 * @param sync what the pod sends
	 * @return the fleet's state after the writes; completed exceptionally when the store
	 * cannot be reached or refuses the sync
	 */
	CompletableFuture<View> sync(Sync sync);

	/**
	 * Listen for hints that another pod changed something, so that this pod syncs at once
	 * rather than at its next interval. A hint is only a hint: the truth is what
	 * {@link #sync} returns. Returns at once (never waits for a connection) and
	 * reconnects by itself.
	 * @param hint called on each hint, on a thread of the store's
	 */
	void listen(Runnable hint);

	/** Stop listening; the store's connections belong to whoever made them. */
	@Override
	void close();

	/**
	 * What a pod sends on each sync.
	 *
	 * @param pod the pod's id, which names the prober and counts the pod alive
	 * @param incarnation this run of the pod (a new one at every start), under which the
	 * store remembers the last batch it applied
	 * @param epoch the store's epoch the pod last saw, or empty for a new pod: a store
	 * that lost its state starts a new epoch, which tells every pod to publish what it
	 * holds again
	 * @param knownOperation the last operator command the pod applied, or {@code -1} for
	 * a new pod, which takes the state as it is
	 * @param window the window the fleet's rates are counted over
	 * @param liveness how recently a pod must have synced to count as alive: a probe
	 * lease held by a pod that has not is free again
	 * @param domains every failure domain of the pod
	 * @param batches the pod's counts not yet acknowledged, oldest first
	 * @param writes gates, parks, locks, operator commands and trial results, in order
	 */
	record Sync(String pod, String incarnation, String epoch, long knownOperation, Duration window, Duration liveness,
			List<Domain> domains, List<Batch> batches, List<Write> writes) {
	}

	/**
	 * One failure domain of the pod: the thresholds it is judged by and what the pod asks
	 * of its probe lease.
	 *
	 * @param domain the failure domain
	 * @param settings the breaker's thresholds and open durations
	 * @param probeInterval the fleet's probe interval, or {@code null}
	 * @param wantsProbe whether this pod has a call (or a canary) waiting to be the
	 * domain's trial
	 * @param holdsProbe whether this pod believes it holds the lease (granted, or its
	 * trial under way): the store keeps it alive
	 * @param probeLease how long a won or kept lease lasts without being kept again
	 * @param spendWindow the index of the pod's current spend window (its start divided
	 * by its length, in epoch milliseconds), or {@code -1} when spend is not judged
	 * @param spendWindowMillis the spend window's length
	 */
	record Domain(String domain, BreakerSettings settings, @Nullable Duration probeInterval, boolean wantsProbe,
			boolean holdsProbe, Duration probeLease, long spendWindow, long spendWindowMillis) {
	}

	/**
	 * What a pod counted between two syncs, numbered: the store applies a batch once per
	 * pod incarnation, however often it is sent, so a pod sends it again until a sync's
	 * answer acknowledges it.
	 *
	 * @param sequence the batch's number, growing by one per batch of the incarnation
	 * @param atMillis when the pod closed it, on the store's clock as the pod last knew
	 * it; {@code 0} when the pod has not heard from the store yet. Counts older than the
	 * window when applied are dropped.
	 * @param counts each failure domain's counts (domains that counted nothing are left
	 * out)
	 */
	record Batch(long sequence, long atMillis, List<Counts> counts) {
	}

	/**
	 * One failure domain's outcomes in a batch.
	 *
	 * @param domain the failure domain
	 * @param calls calls that counted (successes and failures, not ignored ones)
	 * @param failures failures among them
	 * @param slow slow calls among them
	 * @param spendWindow the spend window the spend belongs to, or {@code -1} for none
	 * @param spendCalls answers with usage in it
	 * @param spend their spend (money or tokens, zero or positive)
	 * @param spendExpected what they would have spent at their traffic classes' medians
	 * (zero or positive), so that every pod judges the fleet's window against the fleet's
	 * own mix of traffic
	 */
	record Counts(String domain, long calls, long failures, long slow, long spendWindow, long spendCalls, double spend,
			double spendExpected) {

		/** Counts without spend. */
		public Counts(String domain, long calls, long failures, long slow) {
			this(domain, calls, failures, slow, -1, 0, 0, 0);
		}

		/** Counts with spend but nothing expected of it. */
		public Counts(String domain, long calls, long failures, long slow, long spendWindow, long spendCalls,
				double spend) {
			this(domain, calls, failures, slow, spendWindow, spendCalls, spend, 0);
		}

	}

	/**
	 * One write.
	 *
	 * @param kind what it is
	 * @param subject a quota scope, an account, a failure domain or a chain
	 * @param value the reason of a hold or an opening, the breaker status an operator set
	 * ({@code forced-open}, {@code disabled}, {@code closed}), a trial's result
	 * ({@code ok}, {@code failed}), a chain's targets, comma-separated, or the
	 * classification rules, encoded
	 * @param number the end of a hold or an opening on the store's clock (epoch
	 * milliseconds), or the generation a trial probed
	 */
	record Write(Kind kind, String subject, String value, long number) {

		/** The kinds of write. */
		public enum Kind {

			/** A quota scope gated until {@code number}. */
			GATE,
			/** An account parked until {@code number}. */
			PARK,
			/** An account locked until {@code number}. */
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
			RULES,
			/**
			 * A pod republishes an opening the store lost: the domain is open until
			 * {@code number}, unless the store holds a later end or an operator's status.
			 */
			OPEN,
			/**
			 * This pod's own breaker of the domain opened on its own calls: the store
			 * judges the domain at once on the fleet's rates, its minimum of calls met by
			 * this pod's. {@code value} says which pod, for the reason.
			 */
			OPENED

		}

	}

	/**
	 * The fleet's state.
	 *
	 * @param serverMillis the store's clock when it answered
	 * @param epoch the store's epoch: it changes only when the store lost its state
	 * @param appliedBatch the last batch of the pod's incarnation the store has applied
	 * @param operation the last operator command
	 * @param domains each failure domain the pod sent
	 * @param holds the gates, parks and locks in force
	 * @param operations the operator's lifts since the pod's last known one, oldest first
	 * @param chains chains an operator set, by name
	 * @param rules the classification rules an operator set, encoded, or {@code null}
	 * when none was ever set
	 * @param pods the pods that synced within the counting window, this one included;
	 * {@code 0} when the store does not count them
	 */
	record View(long serverMillis, String epoch, long appliedBatch, long operation, List<DomainView> domains,
			List<Hold> holds, List<Operation> operations, Map<String, List<String>> chains, @Nullable String rules,
			int pods) {
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
	 * @param probeGranted whether this pod holds the lease it asked for
	 * @param reason why the status last changed
	 * @param trialMillis when a pod's trial last passed while the fleet held the domain
	 * closed (a pod whose own breaker had opened), on the store's clock; {@code 0} for
	 * never
	 * @param spendWindow the spend window the pod sent, or {@code -1} when it sent none
	 * @param spendCalls the fleet's answers with usage in that window
	 * @param spend their spend
	 * @param spendExpected what they would have spent at their traffic classes' medians,
	 * or {@code NaN} when the store does not sum it
	 */
	record DomainView(String domain, String status, long untilMillis, long generation, int openings, long calls,
			long failures, long slow, String prober, boolean probeGranted, String reason, long trialMillis,
			long spendWindow, long spendCalls, double spend, double spendExpected) {

		/** A domain's view without spend or trials. */
		public DomainView(String domain, String status, long untilMillis, long generation, int openings, long calls,
				long failures, long slow, String prober, boolean probeGranted, String reason) {
			this(domain, status, untilMillis, generation, openings, calls, failures, slow, prober, probeGranted, reason,
					0, -1, 0, 0, Double.NaN);
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
