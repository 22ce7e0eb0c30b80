package io.github.llmresilience.execute;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.usage.Usage;
import io.github.llmresilience.usage.UsageReader;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;

/**
 * What one attempt of a call needs to know: where to send it, which attempt it is, how
 * long it may take, and the idempotency key that stays the same across every attempt and
 * target of one logical call (send it as {@code Idempotency-Key} where the provider
 * supports it).
 */
public final class Attempt {

	private final String chain;

	private final Target target;

	private final int number;

	private final int targetAttempt;

	private final Duration timeout;

	/** Time left before the call's deadline: a Duration only when asked for. */
	private final long timeLeftNanos;

	private final CallId callId;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(Attempt.class, "state", State.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/**
	 * Where the attempt stands; {@code null} while in flight. A field, not an
	 * AtomicReference: one object less per call. Left {@code null} at construction rather
	 * than set to {@link State#IN_FLIGHT}: a volatile write in the constructor is a full
	 * fence on every call.
	 */
	private volatile @Nullable State state;

	/** When the attempt started, on the engine's monotonic time source. */
	private long startNanos;

	/** The headers of the answer handed over, case-insensitive, or {@code null}. */
	private volatile @Nullable Map<String, List<String>> answerHeaders;

	/** The body of the answer handed over, read for usage when asked, or {@code null}. */
	private volatile @Nullable String answerBody;

	/** Usage reported by the caller or read from stream events, or {@code null}. */
	private volatile @Nullable Usage usage;

	/** What makes the attempt's trace current on a thread; none without tracing. */
	private volatile AttemptScope scope = AttemptScope.NONE;

	Attempt(String chain, Target target, int number, int targetAttempt, Duration timeout, long timeLeftNanos,
			CallId callId) {
		this.chain = chain;
		this.target = target;
		this.number = number;
		this.targetAttempt = targetAttempt;
		this.timeout = timeout;
		this.timeLeftNanos = timeLeftNanos;
		this.callId = callId;
	}

	/**
	 * Run {@code work} with this attempt's trace current on this thread (an
	 * {@code Observation} when tracing is on, else nothing): a provider client's own
	 * observation started within (Spring AI's {@code gen_ai.client.operation}) becomes
	 * the attempt's child. The engine does so around the call function; a call function
	 * that hands the request to another thread calls this there.
	 */
	public <T extends @Nullable Object> T inScope(Supplier<T> work) {
		try (AttemptScope.Opened opened = this.scope.open()) {
			return work.get();
		}
	}

	/** Opens the attempt's trace on the calling thread; close it on the same thread. */
	AttemptScope.Opened openScope() {
		return this.scope.open();
	}

	/** The attempt's trace in a Reactor context (see {@link AttemptScope#inReactor}). */
	Context inReactor(Context context) {
		return this.scope.inReactor(context);
	}

	void scope(AttemptScope scope) {
		this.scope = scope;
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

	/**
	 * How long this attempt may take: the target's attempt timeout, cut to the deadline.
	 */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Time left before the call's deadline (every call has one: {@code timeouts.call} by
	 * default).
	 */
	public Duration timeLeft() {
		return Duration.ofNanos(this.timeLeftNanos);
	}

	/** The same for every attempt and target of one logical call. */
	public String idempotencyKey() {
		return this.callId.key();
	}

	/**
	 * Hand over the provider's successful answer, so that the engine can read what it
	 * tells beyond its content: the tokens used (for spend and token quotas), the
	 * vendor's rate-limit capacity and its own processing time (from the headers). Call
	 * it from the call function before returning the value, once per answer; for a
	 * stream, with each event ({@link ProviderResponse#streamEvent}) that may carry usage
	 * (OpenAI's last chunk, Anthropic's {@code message_start} and {@code message_delta},
	 * every Gemini chunk), and once with the response's headers. Optional: an attempt
	 * nothing was handed over for is still a success.
	 * <p>
	 * A {@link ProviderResponse} keeps the first {@link ProviderResponse#MAX_BODY_BYTES}
	 * characters of a body; OpenAI and Anthropic put their usage at the end, so for
	 * answers that may be longer use {@link #answered(Map, String)}.
	 * @param answer the answer, or one stream event
	 */
	public void answered(ProviderResponse answer) {
		if (answer.kind() == ProviderResponse.Kind.STREAM_EVENT) {
			Usage reported = UsageReader.read(answer.body());
			if (reported != null) {
				usage(reported);
			}
			return;
		}
		answered(answer.headers(), answer.body());
	}

	/**
	 * Hand over the provider's successful answer, its body whole: see
	 * {@link #answered(ProviderResponse)}. The body is held until the attempt is settled
	 * and read for usage only when something asks for it.
	 * @param headers the answer's headers (may be {@code null}; names are matched
	 * case-insensitively)
	 * @param body the answer's body (may be {@code null}, as for a stream whose events
	 * are handed over one by one)
	 */
	public void answered(@Nullable Map<String, List<String>> headers, @Nullable String body) {
		if (headers != null && !headers.isEmpty()) {
			this.answerHeaders = ProviderResponse.of(200, headers, (String) null).headers();
		}
		if (body != null) {
			this.answerBody = body;
		}
	}

	/**
	 * Report the tokens the answer used, when the caller knows them already (a Spring AI
	 * {@code ChatResponse}'s usage, an SDK's parsed answer). Reports of one attempt
	 * combine by the larger of each count.
	 */
	public void usage(Usage usage) {
		Objects.requireNonNull(usage, "usage");
		synchronized (this) {
			Usage known = this.usage;
			this.usage = (known != null) ? known.max(usage) : usage;
		}
	}

	/** What was handed over of the answer: {@link Answer#NONE} when nothing. */
	Answer answer() {
		Map<String, List<String>> headers = this.answerHeaders;
		String body = this.answerBody;
		Usage usage = this.usage;
		if (headers == null && body == null && usage == null) {
			return Answer.NONE;
		}
		return new Answer((headers != null) ? headers : Map.of(), body, usage);
	}

	/**
	 * Move an attempt still in flight to its end state: the first of its result, its
	 * cancellation and its timeout alarm wins, and only the winner settles its permit.
	 * @return whether this call won
	 */
	boolean settle(State to) {
		return STATE.compareAndSet(this, null, to);
	}

	State state() {
		State state = this.state;
		return (state != null) ? state : State.IN_FLIGHT;
	}

	void state(State state) {
		this.state = state;
	}

	long startNanos() {
		return this.startNanos;
	}

	void startNanos(long startNanos) {
		this.startNanos = startNanos;
	}

	@Override
	public String toString() {
		return "Attempt[" + this.chain + " #" + this.number + " on " + this.target.name() + "]";
	}

	/** Where an attempt stands; only {@link #IN_FLIGHT} moves on. */
	enum State {

		/** Sent, not settled. */
		IN_FLIGHT,

		/** Settled by its result: a value, completion or an error. */
		ANSWERED,

		/**
		 * Settled by cancellation, or claimed by the timeout alarm of a blocking call.
		 */
		CANCELLED,

		/** The timeout alarm's interrupt has been delivered to the blocking caller. */
		INTERRUPTED

	}

	/** The identity of one logical call; its key is made only when asked for. */
	static final class CallId {

		private final @Nullable String given;

		private @Nullable String key;

		CallId(@Nullable String given) {
			this.given = given;
		}

		synchronized String key() {
			if (this.key == null) {
				if (this.given != null) {
					this.key = this.given;
				}
				else {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					this.key = new UUID((random.nextLong() & ~0xF000L) | 0x4000L,
							(random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L)
						.toString();
				}
			}
			return this.key;
		}

	}

}
