package io.github.llmresilience.fleet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

import io.github.llmresilience.fleet.FleetStore.Batch;
import io.github.llmresilience.fleet.FleetStore.Counts;
import io.github.llmresilience.fleet.FleetStore.Write;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a pod has to send its fleet's store: the writes its calls and operators queued
 * (one per kind and subject, the newest winning), and the batches of counts the store has
 * not yet acknowledged. Calls only queue here, under a short lock; the fleet's thread
 * takes what goes in a sync and puts back what did not arrive. A batch stays until an
 * answer acknowledges it, however often it is sent: the store applies it once.
 */
final class Outbox {

	private static final Logger logger = LoggerFactory.getLogger(Outbox.class);

	/** Writes kept while the store is away; beyond it the oldest are dropped. */
	static final int MAX_WRITES = 1000;

	/** Batches kept unacknowledged; beyond it the oldest are dropped. */
	static final int MAX_BATCHES = 1000;

	/** Writes not yet sent, by kind and subject, oldest first; guarded by itself. */
	private final LinkedHashMap<String, Pending> writes = new LinkedHashMap<>();

	/**
	 * Batches sent or to send and not yet acknowledged, oldest first; guarded by itself.
	 */
	private final ArrayDeque<Batch> batches = new ArrayDeque<>();

	/** The last batch's number; guarded by {@link #batches}. */
	private long sequence;

	/**
	 * Queue a hold unless one of the same kind and subject ending as late is queued.
	 * @return whether it was queued
	 */
	boolean hold(Pending write) {
		synchronized (this.writes) {
			Pending previous = this.writes.get(write.key());
			if (previous != null && previous.number() >= write.number()) {
				return false;
			}
			queue(write);
			return true;
		}
	}

	/** Queue a write, replacing one of the same kind and subject. */
	void command(Pending write) {
		synchronized (this.writes) {
			queue(write);
		}
	}

	private void queue(Pending write) {
		// Re-inserted at the end: a release after a gate, then a new gate, keep their
		// order.
		this.writes.remove(write.key());
		this.writes.put(write.key(), write);
		if (this.writes.size() > MAX_WRITES) {
			String oldest = this.writes.keySet().iterator().next();
			this.writes.remove(oldest);
			logger.warn("Fleet store away too long: dropped the write {}", oldest);
		}
	}

	/**
	 * Take the writes for a sync.
	 * @param holds whether holds go too (not before the store's clock is known)
	 */
	List<Pending> drain(boolean holds) {
		synchronized (this.writes) {
			List<Pending> taken = new ArrayList<>(this.writes.size());
			this.writes.values().removeIf((write) -> {
				if (holds || !write.isHold()) {
					taken.add(write);
					return true;
				}
				return false;
			});
			return taken;
		}
	}

	/** Put back writes a sync did not deliver, unless newer ones replaced them. */
	void requeue(List<Pending> sent) {
		synchronized (this.writes) {
			LinkedHashMap<String, Pending> newer = new LinkedHashMap<>(this.writes);
			this.writes.clear();
			for (Pending write : sent) {
				if (!newer.containsKey(write.key())) {
					this.writes.put(write.key(), write);
				}
			}
			this.writes.putAll(newer);
		}
	}

	boolean hasWrites() {
		synchronized (this.writes) {
			return !this.writes.isEmpty();
		}
	}

	/**
	 * Whether a write of this kind and subject waits: newer than what the store holds.
	 */
	boolean isQueued(Write.Kind kind, String subject) {
		synchronized (this.writes) {
			return this.writes.containsKey(Pending.key(kind, subject));
		}
	}

	/**
	 * Close a batch of what was counted since the last one; nothing when nothing was.
	 * @param atMillis when, on the store's clock as last known, or {@code 0}
	 */
	void batch(List<Counts> counts, long atMillis) {
		if (counts.isEmpty()) {
			return;
		}
		synchronized (this.batches) {
			this.batches.addLast(new Batch(++this.sequence, atMillis, counts));
			if (this.batches.size() > MAX_BATCHES) {
				Batch dropped = this.batches.removeFirst();
				logger.warn("Fleet store away too long: dropped the counts of batch {}", dropped.sequence());
			}
		}
	}

	/** Every batch not yet acknowledged, oldest first. */
	List<Batch> batches() {
		synchronized (this.batches) {
			return new ArrayList<>(this.batches);
		}
	}

	/** The store applied every batch up to this one: none is sent again. */
	void acknowledge(long applied) {
		synchronized (this.batches) {
			while (!this.batches.isEmpty() && this.batches.peekFirst().sequence() <= applied) {
				this.batches.removeFirst();
			}
		}
	}

	/** A write waiting to be sent; an end is on this pod's clock. */
	record Pending(Write.Kind kind, String subject, String value, long number) {

		static String key(Write.Kind kind, String subject) {
			return kind + " " + subject;
		}

		String key() {
			return key(this.kind, this.subject);
		}

		boolean isHold() {
			return this.kind == Write.Kind.GATE || this.kind == Write.Kind.PARK || this.kind == Write.Kind.LOCK
					|| this.kind == Write.Kind.OPEN;
		}

		/**
		 * An end (on this pod's clock) goes on the store's: the same end however late the
		 * store runs it.
		 * @param offset this pod's clock minus the store's
		 */
		Write toWrite(long offset) {
			return isHold() ? new Write(this.kind, this.subject, this.value, Math.max(0, this.number - offset))
					: new Write(this.kind, this.subject, this.value, this.number);
		}

	}

}
