package io.github.llmresilience.sample.simulator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The serving slots of a {@link Mode#BROWNOUT brownout} target: a request holds one from
 * its arrival (or from its turn in line) until its answer ends, and a request that finds
 * them all taken is shed or waits in line, first come first served. Thread-safe; the
 * simulator's requests arrive on many event-loop threads at once.
 */
final class ServingSlots {

	/** The highest share of requests over capacity that is shed at once. */
	static final double MAX_SHED = 0.9;

	private final Deque<Ticket> line = new ArrayDeque<>();

	private int capacity = ModeSetting.DEFAULT_CAPACITY;

	private int busy;

	/**
	 * The share of arriving requests shed when {@code excess} requests wait for a slot,
	 * the arriving one included: {@code min(0.9, excess / (2 * capacity))}. It grows with
	 * the line, so that a brownout answers slowly before it answers "overloaded", and a
	 * tenth of the requests still queue at any load, as a real server's queue keeps
	 * taking some.
	 */
	static double shedProbability(int excess, int capacity) {
		return Math.min(MAX_SHED, excess / (2.0 * capacity));
	}

	/**
	 * A request arrives.
	 * @param capacity the target's capacity now (its mode may have changed it)
	 * @param random a number drawn uniformly from [0, 1), for the shedding
	 * @return its ticket: a slot now, a place in line, or shed
	 */
	Ticket arrive(int capacity, double random) {
		Ticket ticket;
		List<Ticket> granted;
		synchronized (this) {
			this.capacity = capacity;
			granted = grantWhileFree();
			if (this.busy < this.capacity) {
				this.busy++;
				ticket = new Ticket(State.HOLDING);
			}
			else if (random < shedProbability(this.line.size() + 1, this.capacity)) {
				ticket = new Ticket(State.SHED);
			}
			else {
				ticket = new Ticket(State.WAITING);
				this.line.addLast(ticket);
			}
		}
		granted.forEach(Ticket::signal);
		return ticket;
	}

	/**
	 * The request has ended (answered, failed or cancelled): its slot goes to the first
	 * in line, or its place in line is given up. Once per ticket; later calls do nothing.
	 */
	void leave(Ticket ticket) {
		List<Ticket> granted;
		synchronized (this) {
			switch (ticket.state) {
				case HOLDING -> this.busy--;
				case WAITING -> this.line.remove(ticket);
				default -> {
					return;
				}
			}
			ticket.state = State.LEFT;
			granted = grantWhileFree();
		}
		granted.forEach(Ticket::signal);
	}

	/** Requests holding a slot now. */
	synchronized int busy() {
		return this.busy;
	}

	/** Requests waiting in line now. */
	synchronized int waiting() {
		return this.line.size();
	}

	private List<Ticket> grantWhileFree() {
		List<Ticket> granted = new ArrayList<>();
		while (this.busy < this.capacity && !this.line.isEmpty()) {
			Ticket next = this.line.removeFirst();
			next.state = State.HOLDING;
			this.busy++;
			granted.add(next);
		}
		return granted;
	}

	private enum State {

		HOLDING, WAITING, SHED, LEFT

	}

	/** One request's claim on a slot. */
	static final class Ticket {

		/** Guarded by the slots that issued it. */
		private State state;

		private final Sinks.Empty<Void> turn = Sinks.empty();

		private Ticket(State state) {
			this.state = state;
			if (state == State.HOLDING) {
				this.turn.tryEmitEmpty();
			}
		}

		/** Whether the request was shed: it gets the vendor's overload answer. */
		boolean shed() {
			return this.state == State.SHED;
		}

		/** Completes when the request holds a slot: at once, or at its turn in line. */
		Mono<Void> turn() {
			return this.turn.asMono();
		}

		private void signal() {
			// Outside the slots' lock: the request's answer starts on this thread.
			this.turn.tryEmitEmpty();
		}

	}

}
