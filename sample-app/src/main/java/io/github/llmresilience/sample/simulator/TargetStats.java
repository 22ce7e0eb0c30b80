package io.github.llmresilience.sample.simulator;

import java.util.Map;

/**
 * What one simulated target received since the last reset.
 *
 * @param vendor the format it speaks
 * @param requests requests received
 * @param statuses requests by the status they were answered with (a hanging request has
 * none)
 * @param modes the same, by the mode the target was in when the request arrived
 * @param insideRetryAfter requests that arrived before the wait the target's last 429
 * asked for had passed: a client that honours {@code retry-after} sends none
 * @param overloaded requests answered with the vendor's overload answer (OpenAI's 429
 * "server is currently overloaded", Anthropic's 529), in {@code overloaded} or
 * {@code brownout} mode: a 429 of OpenAI's alone does not tell it from a rate limit
 */
public record TargetStats(String vendor, long requests, Map<Integer, Long> statuses, Map<String, ModeStats> modes,
		long insideRetryAfter, long overloaded) {

	/** Requests received while the target was in the given mode. */
	public ModeStats mode(Mode mode) {
		return this.modes.getOrDefault(mode.id(), ModeStats.NONE);
	}

	/**
	 * What a target received while in one mode.
	 *
	 * @param requests requests received
	 * @param statuses requests by the status they were answered with
	 */
	public record ModeStats(long requests, Map<Integer, Long> statuses) {

		static final ModeStats NONE = new ModeStats(0, Map.of());

	}

}
