package io.github.llmresilience.execute;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.github.llmresilience.target.Target;

/**
 * What one attempt of a call needs to know: where to send it, which attempt it is, how
 * long it may take, and the idempotency key that stays the same across every attempt and
 * target of one logical call (send it as {@code Idempotency-Key} where the vendor
 * supports it).
 */
public final class Attempt {

	private final String chain;

	private final Target target;

	private final int number;

	private final int targetAttempt;

	private final Duration timeout;

	private final Duration timeLeft;

	private final CallId callId;

	private static final VarHandle SETTLED;

	static {
		try {
			SETTLED = MethodHandles.lookup().findVarHandle(Attempt.class, "settled", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/**
	 * 0 in flight; 1 settled by its result; 2 settled by cancellation or claimed by the
	 * timeout alarm; 3 the alarm's interrupt is delivered. A field, not an AtomicInteger:
	 * one object less on every call.
	 */
	private volatile int settled;

	Attempt(String chain, Target target, int number, int targetAttempt, Duration timeout, Duration timeLeft,
			CallId callId) {
		this.chain = chain;
		this.target = target;
		this.number = number;
		this.targetAttempt = targetAttempt;
		this.timeout = timeout;
		this.timeLeft = timeLeft;
		this.callId = callId;
	}

	/** The chain the call runs through. */
	public String chain() {
		return this.chain;
	}

	/** Where to send this attempt. */
	public Target target() {
		return this.target;
	}

	/** This attempt's number in the logical call, from 1, across targets. */
	public int number() {
		return this.number;
	}

	/** This attempt's number on its target, from 1: 2 and up are retries. */
	public int targetAttempt() {
		return this.targetAttempt;
	}

	/** How long this attempt may take: the target's attempt timeout, cut to the deadline. */
	public Duration timeout() {
		return this.timeout;
	}

	/** Time left before the call's deadline; {@code null} when the call has none. */
	public Duration timeLeft() {
		return this.timeLeft;
	}

	/** The same for every attempt and target of one logical call. */
	public String idempotencyKey() {
		return this.callId.key();
	}

	boolean settle(int from, int to) {
		return SETTLED.compareAndSet(this, from, to);
	}

	int settled() {
		return this.settled;
	}

	void settled(int state) {
		this.settled = state;
	}

	@Override
	public String toString() {
		return "Attempt[" + this.chain + " #" + this.number + " on " + this.target.name() + "]";
	}

	/** The identity of one logical call; its key is made only when asked for. */
	static final class CallId {

		private final String given;

		private String key;

		CallId(String given) {
			this.given = given;
		}

		synchronized String key() {
			if (this.key == null) {
				if (this.given != null) {
					this.key = this.given;
				}
				else {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					this.key = new java.util.UUID((random.nextLong() & ~0xF000L) | 0x4000L,
							(random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L)
						.toString();
				}
			}
			return this.key;
		}

	}

}
