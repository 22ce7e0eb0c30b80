package io.github.llmresilience.sample.simulator;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How a simulated target behaves. Every failure is answered in the vendor's own error
 * format, because that is what the classifiers read.
 */
public enum Mode {

	/** Answers after a latency drawn from recorded real calls. */
	NORMAL,

	/** 503 with the vendor's server-error body: the provider is down. */
	OUTAGE,

	/**
	 * The vendor's overload answer: OpenAI's 429 "server is currently overloaded",
	 * Anthropic's 529.
	 */
	OVERLOADED,

	/** Answers, eight times slower than normal. */
	SLOW,

	/**
	 * An overloaded server: a capacity of {@link ModeSetting#capacity() capacity}
	 * concurrent requests (default 8), each holding a slot until its answer (or its
	 * stream) ends. Up to the capacity, requests answer as {@link #NORMAL}. Beyond it, a
	 * request gets the vendor's overload answer at once (as {@link #OVERLOADED}: OpenAI's
	 * 429 "server is currently overloaded", Anthropic's 529 {@code overloaded_error})
	 * with probability {@code p = min(0.9, excess / (2 * capacity))}, where
	 * {@code excess} counts the requests waiting for a slot, this one included; else it
	 * waits in line, first come first served, for a free slot and then answers as
	 * {@link #NORMAL}. Its first token (its answer, without streaming) is later by its
	 * time in line, so latency grows with the queue before the overload answers take
	 * over, as providers brown out. A request whose client gives up leaves the line (or
	 * frees its slot).
	 */
	BROWNOUT,

	/**
	 * A slow tail: a share {@link ModeSetting#probability() probability} of requests
	 * (default 0.05, 5 %) gets its first token ten times later than normal, the rest of
	 * its answer at the normal pace; without streaming, its answer comes later by the
	 * same delay. The other requests answer as {@link #NORMAL}.
	 */
	TAIL,

	/** 429 rate limit with {@code retry-after} and the vendor's reset headers. */
	THROTTLE,

	/**
	 * The vendor's out-of-quota answer: OpenAI's insufficient_quota, Anthropic's spend
	 * limit.
	 */
	QUOTA,

	/** A safety refusal inside a 200, as both vendors send it for chat. */
	CONTENT_FILTER,

	/** A 500 server error with the given probability, else a normal answer. */
	FLAKY,

	/** Accepts the request and never answers. */
	HANG,

	/** Streams start normally and the connection drops after some tokens. */
	MIDSTREAM_DROP,

	/**
	 * A degraded serving tier: 200 with an empty body or the first half of one. The
	 * status says success; only a canary that reads the answer tells.
	 */
	DEGRADED_TIER,

	/**
	 * Answers, four times longer than normal, with the usage the vendor reports growing
	 * alike (a model version whose answers run longer): every call succeeds, only the
	 * bill tells.
	 */
	LONGER;

	/** The name used in the admin API: {@code content-filter}, {@code midstream-drop}. */
	@JsonValue
	public String id() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * @throws IllegalArgumentException naming the modes there are
	 */
	public static Mode of(String id) {
		for (Mode mode : values()) {
			if (mode.id().equalsIgnoreCase(id) || mode.name().equalsIgnoreCase(id)) {
				return mode;
			}
		}
		throw new IllegalArgumentException("Unknown mode '" + id + "'; modes: "
				+ Arrays.stream(values()).map(Mode::id).collect(Collectors.joining(", ")));
	}

}
