package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * One simulated target: its vendor, its mode and what it received. Thread-safe; requests
 * arrive on many event-loop threads at once.
 */
public final class SimulatedTarget {

	private final String name;

	private final SimulatedVendor vendor;

	private ModeSetting mode = ModeSetting.NORMAL;

	/** The request rate limit, or {@code null} without one. */
	private volatile @Nullable RequestLimit limit;

	/** Until when the last 429 asked clients to wait. */
	private Instant retryAfterUntil = Instant.MIN;

	private long requests;

	private long insideRetryAfter;

	private long overloaded;

	/**
	 * Its serving slots in brownout; kept across modes and resets, since requests in
	 * flight hold them until they end.
	 */
	private final ServingSlots slots = new ServingSlots();

	private final Map<Integer, Long> statuses = new HashMap<>();

	private final Map<Mode, Counts> modes = new HashMap<>();

	SimulatedTarget(String name, SimulatedVendor vendor) {
		this.name = name;
		this.vendor = vendor;
	}

	public String name() {
		return this.name;
	}

	public SimulatedVendor vendor() {
		return this.vendor;
	}

	/** The mode in force at the given time; a mode whose time is up is back to normal. */
	public synchronized ModeSetting mode(Instant now) {
		if (this.mode.isOver(now)) {
			this.mode = ModeSetting.NORMAL;
		}
		return this.mode;
	}

	synchronized void mode(ModeSetting mode) {
		this.mode = mode;
	}

	/**
	 * Limit the target to this many requests a minute from now, or lift it ({@code 0}).
	 */
	void rateLimit(long perMinute, Clock clock) {
		this.limit = (perMinute > 0) ? new RequestLimit(perMinute, clock) : null;
	}

	/** The request rate limit, or {@code null} without one. */
	@Nullable RequestLimit limit() {
		return this.limit;
	}

	/**
	 * Count a request on its arrival.
	 * @param mode the mode it met
	 * @param status the status it will be answered with, or 0 when it will get none
	 * @param now its arrival time
	 */
	synchronized void received(Mode mode, int status, Instant now) {
		this.requests++;
		if (now.isBefore(this.retryAfterUntil)) {
			this.insideRetryAfter++;
		}
		Counts counts = this.modes.computeIfAbsent(mode, (key) -> new Counts());
		counts.requests++;
		if (status != 0) {
			this.statuses.merge(status, 1L, Long::sum);
			counts.statuses.merge(status, 1L, Long::sum);
		}
	}

	/** A request got the vendor's overload answer (counted by {@link #received} too). */
	synchronized void overloaded() {
		this.overloaded++;
	}

	ServingSlots slots() {
		return this.slots;
	}

	/** A 429 went out asking clients to wait until the given time. */
	synchronized void askedToWaitUntil(Instant until) {
		if (until.isAfter(this.retryAfterUntil)) {
			this.retryAfterUntil = until;
		}
	}

	/** Clear the statistics and go back to normal. */
	synchronized void reset() {
		this.mode = ModeSetting.NORMAL;
		this.retryAfterUntil = Instant.MIN;
		this.requests = 0;
		this.insideRetryAfter = 0;
		this.overloaded = 0;
		this.statuses.clear();
		this.modes.clear();
	}

	public synchronized TargetStats stats() {
		Map<String, TargetStats.ModeStats> byMode = new TreeMap<>();
		this.modes.forEach((mode, counts) -> byMode.put(mode.id(),
				new TargetStats.ModeStats(counts.requests, new TreeMap<>(counts.statuses))));
		return new TargetStats(this.vendor.id(), this.requests, new TreeMap<>(this.statuses), byMode,
				this.insideRetryAfter, this.overloaded);
	}

	private static final class Counts {

		long requests;

		final Map<Integer, Long> statuses = new HashMap<>();

	}

}
