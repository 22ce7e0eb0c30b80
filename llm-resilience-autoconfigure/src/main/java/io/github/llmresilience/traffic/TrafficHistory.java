package io.github.llmresilience.traffic;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.ChainStep;
import io.github.llmresilience.target.Target;

/**
 * Per target, a ring of per-second counts over the last few minutes: requests sent,
 * failures the provider is to blame for, rejections (the provider refused the request as
 * the caller's fault) and fail-fasts (the target passed over without a request, because
 * its account, quota scope or breaker refused). Fed as a {@link CallObserver}, so it sees
 * exactly what the engine records; a second costs five longs per target, and recording
 * one event a short uncontended lock.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class TrafficHistory implements CallObserver {

	/** The longest history kept. */
	public static final Duration MAX_SPAN = Duration.ofMinutes(10);

	private static final int REQUESTS = 0;

	private static final int FAILURES = 1;

	private static final int REJECTIONS = 2;

	private static final int FAIL_FASTS = 3;

	private final Clock clock;

	private final int seconds;

	private final Map<String, Ring> rings = new ConcurrentHashMap<>();

	/**
	 * @param clock the clock that stamps every count
	 * @param span how far back to keep counts: 1 second to {@link #MAX_SPAN}
	 * @throws IllegalArgumentException when the span is out of that range
	 */
	public TrafficHistory(Clock clock, Duration span) {
		this.clock = Objects.requireNonNull(clock, "clock");
		Objects.requireNonNull(span, "span");
		if (span.compareTo(Duration.ofSeconds(1)) < 0 || span.compareTo(MAX_SPAN) > 0) {
			throw new IllegalArgumentException("span must be between 1s and " + MAX_SPAN + ", was " + span);
		}
		this.seconds = (int) span.toSeconds();
	}

	/** How many seconds are kept. */
	public int seconds() {
		return this.seconds;
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		Outcome outcome = verdict.outcome();
		int failure = (outcome == Outcome.SUCCESS) ? -1 : outcome.isCallersFault() ? REJECTIONS : FAILURES;
		ring(target.name()).add(this.clock.millis(), REQUESTS, failure);
	}

	@Override
	public void onSkipped(String chain, Target target, ChainStep.Skip why) {
		ring(target.name()).add(this.clock.millis(), FAIL_FASTS, -1);
	}

	/**
	 * The counts of one target for each of the last {@link #seconds()} seconds up to
	 * {@code now}, oldest first; a second without events counts zero.
	 */
	public Window window(String target, Instant now) {
		long last = Math.floorDiv(now.toEpochMilli(), 1000);
		long first = last - this.seconds + 1;
		Ring ring = this.rings.get(target);
		int[][] counts = new int[4][this.seconds];
		if (ring != null) {
			ring.copy(first, last, counts);
		}
		return new Window(Instant.ofEpochSecond(first), counts[REQUESTS], counts[FAILURES], counts[REJECTIONS],
				counts[FAIL_FASTS]);
	}

	private Ring ring(String target) {
		Ring ring = this.rings.get(target);
		return (ring != null) ? ring : this.rings.computeIfAbsent(target, (name) -> new Ring(this.seconds));
	}

	/**
	 * One target's counts, one element per second from {@code from}, oldest first.
	 *
	 * @param from the first second
	 * @param requests requests sent to the provider
	 * @param failures attempts that failed on the provider's side
	 * @param rejections attempts the provider refused as the caller's fault
	 * @param failFasts calls that passed the target over without a request
	 */
	public record Window(Instant from, int[] requests, int[] failures, int[] rejections, int[] failFasts) {

	}

	/** The ring of one target: slot {@code second % size} holds that second's counts. */
	private static final class Ring {

		private final long[] second;

		private final int[][] counts;

		Ring(int size) {
			this.second = new long[size];
			Arrays.fill(this.second, Long.MIN_VALUE);
			this.counts = new int[size][4];
		}

		synchronized void add(long millis, int counter, int alsoCounter) {
			long now = Math.floorDiv(millis, 1000);
			int slot = (int) Math.floorMod(now, (long) this.second.length);
			if (this.second[slot] != now) {
				if (this.second[slot] > now) {
					// The clock went back: this second's slot already holds a later one.
					return;
				}
				this.second[slot] = now;
				Arrays.fill(this.counts[slot], 0);
			}
			this.counts[slot][counter]++;
			if (alsoCounter >= 0) {
				this.counts[slot][alsoCounter]++;
			}
		}

		synchronized void copy(long first, long last, int[][] into) {
			for (long s = first; s <= last; s++) {
				int slot = (int) Math.floorMod(s, (long) this.second.length);
				if (this.second[slot] == s) {
					int index = (int) (s - first);
					for (int c = 0; c < 4; c++) {
						into[c][index] = this.counts[slot][c];
					}
				}
			}
		}

	}

}
