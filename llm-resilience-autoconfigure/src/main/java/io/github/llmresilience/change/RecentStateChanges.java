package io.github.llmresilience.change;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The last state changes, newest first, for the actuator endpoint: an operator woken at
 * night sees what happened without searching the logs. Bounded, so a flapping provider
 * cannot grow it.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class RecentStateChanges implements StateChangeListener {

	/** How many changes are kept by default. */
	public static final int DEFAULT_CAPACITY = 200;

	private final @Nullable StateChange[] ring;

	private int next;

	private int size;

	public RecentStateChanges() {
		this(DEFAULT_CAPACITY);
	}

	/**
	 * @param capacity how many changes to keep
	 */
	public RecentStateChanges(int capacity) {
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
		}
		this.ring = new StateChange[capacity];
	}

	@Override
	public synchronized void onStateChange(StateChange change) {
		this.ring[this.next] = change;
		this.next = (this.next + 1) % this.ring.length;
		if (this.size < this.ring.length) {
			this.size++;
		}
	}

	/** The kept changes, newest first. */
	public synchronized List<StateChange> list() {
		List<StateChange> changes = new ArrayList<>(this.size);
		for (int i = 1; i <= this.size; i++) {
			changes.add(this.ring[Math.floorMod(this.next - i, this.ring.length)]);
		}
		return changes;
	}

	public int capacity() {
		return this.ring.length;
	}

}
