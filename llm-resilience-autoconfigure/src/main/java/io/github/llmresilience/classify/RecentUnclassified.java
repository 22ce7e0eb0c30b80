package io.github.llmresilience.classify;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The {@code (provider, status, type)} tuples a classifier recently had to default, with
 * how often and when each was seen, so that an operator can add them to the provider's
 * table. Bounded: when full, the tuple seen least recently makes room.
 *
 * <p>
 * Each tuple also says which rule read it last ({@code default}, or the user's
 * {@code rules[i]}): an operator who adds a rule for a defaulted tuple sees it take over
 * on the tuple's next answer. Tuples a user's rule decides are kept too, so the list
 * shows what the user's rules are deciding.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class RecentUnclassified implements UnclassifiedListener {

	/** How many distinct tuples are kept by default. */
	public static final int DEFAULT_CAPACITY = 100;

	private final Clock clock;

	private final int capacity;

	private final Map<Key, Counts> tuples = new HashMap<>();

	public RecentUnclassified(Clock clock) {
		this(clock, DEFAULT_CAPACITY);
	}

	/**
	 * @param clock when tuples are seen
	 * @param capacity how many distinct tuples to keep
	 */
	public RecentUnclassified(Clock clock, int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
		}
		this.clock = Objects.requireNonNull(clock, "clock");
		this.capacity = capacity;
	}

	@Override
	public void unclassified(String provider, int status, @Nullable String errorType) {
		seen(provider, status, errorType, Verdict.DEFAULT, "status " + status + " default");
	}

	@Override
	public void unclassified(String provider, int status, @Nullable String errorType, String reason) {
		seen(provider, status, errorType, Verdict.DEFAULT, reason);
	}

	@Override
	public void decidedByRule(String provider, int status, @Nullable String errorType, String rule) {
		seen(provider, status, errorType, rule, rule);
	}

	@Override
	public void decidedByRule(String provider, int status, @Nullable String errorType, String rule, String reason) {
		seen(provider, status, errorType, rule, reason);
	}

	private void seen(String provider, int status, @Nullable String errorType, String rule, String reason) {
		Key key = new Key(provider, status, errorType);
		long now = this.clock.millis();
		synchronized (this.tuples) {
			Counts counts = this.tuples.get(key);
			if (counts == null) {
				if (this.tuples.size() >= this.capacity) {
					evictLeastRecent();
				}
				counts = new Counts(now);
				this.tuples.put(key, counts);
			}
			counts.count++;
			counts.lastSeen = now;
			counts.decidedBy = rule;
			counts.reason = reason;
		}
	}

	/** The kept tuples, the one seen most recently first. */
	public List<Entry> list() {
		List<Entry> entries = new ArrayList<>();
		synchronized (this.tuples) {
			this.tuples.forEach((key,
					counts) -> entries.add(new Entry(key.provider(), key.status(), key.type(), counts.count,
							Instant.ofEpochMilli(counts.firstSeen), Instant.ofEpochMilli(counts.lastSeen),
							counts.decidedBy, counts.reason)));
		}
		entries.sort(Comparator.comparing(Entry::lastSeen).reversed());
		return entries;
	}

	private void evictLeastRecent() {
		Key oldest = null;
		long oldestSeen = Long.MAX_VALUE;
		for (Map.Entry<Key, Counts> each : this.tuples.entrySet()) {
			if (each.getValue().lastSeen < oldestSeen) {
				oldestSeen = each.getValue().lastSeen;
				oldest = each.getKey();
			}
		}
		this.tuples.remove(oldest);
	}

	/**
	 * One defaulted tuple.
	 *
	 * @param provider the provider id
	 * @param status the HTTP status, 0 when there was none
	 * @param type the provider's error type, or {@code null} when it gave none
	 * @param count how often it was seen
	 * @param firstSeen when it was first seen
	 * @param lastSeen when it was last seen
	 * @param decidedBy which rule read its last answer: {@code default} (the status
	 * alone) or the user's {@code rules[i]}
	 * @param reason why its last answer got its verdict, in words (the verdict's
	 * {@link Verdict#reason()})
	 */
	public record Entry(String provider, int status, @Nullable String type, long count, Instant firstSeen,
			Instant lastSeen, String decidedBy, String reason) {

		/** A tuple last read by the status default. */
		public Entry(String provider, int status, @Nullable String type, long count, Instant firstSeen,
				Instant lastSeen) {
			this(provider, status, type, count, firstSeen, lastSeen, Verdict.DEFAULT, "status " + status + " default");
		}

		/** A tuple last read by a rule, its reason the rule's name. */
		public Entry(String provider, int status, @Nullable String type, long count, Instant firstSeen,
				Instant lastSeen, String decidedBy) {
			this(provider, status, type, count, firstSeen, lastSeen, decidedBy, decidedBy);
		}

	}

	private record Key(String provider, int status, @Nullable String type) {
	}

	private static final class Counts {

		private final long firstSeen;

		private long lastSeen;

		private long count;

		private String decidedBy = Verdict.DEFAULT;

		private String reason = "";

		Counts(long firstSeen) {
			this.firstSeen = firstSeen;
			this.lastSeen = firstSeen;
		}

	}

}
