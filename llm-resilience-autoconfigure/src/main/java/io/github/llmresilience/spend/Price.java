package io.github.llmresilience.spend;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * What a target's tokens cost, per million, in whatever currency the application bills in
 * (the trigger compares spend with itself, so the currency never matters). Held as
 * {@code double}: spend is only summed and divided to compare windows, where a
 * {@code double}'s relative error (about 1e-16) is far below any threshold, and a call's
 * path allocates no {@code BigDecimal}.
 *
 * @param input the price of a million input (prompt) tokens, zero or positive
 * @param output the price of a million output (completion) tokens, zero or positive
 */
public record Price(double input, double output) {

	/**
	 * @throws IllegalArgumentException when a price is negative, not a number or
	 * infinite, or both are zero
	 */
	public Price {
		requirePrice("input", input);
		requirePrice("output", output);
		if (input == 0 && output == 0) {
			throw new InvalidSettingException("output", "must be above 0 when input is 0", output);
		}
	}

	/** What this many tokens cost. */
	public double cost(long inputTokens, long outputTokens) {
		return (inputTokens * this.input + outputTokens * this.output) / 1_000_000d;
	}

	private static void requirePrice(String name, double value) {
		if (!(value >= 0) || Double.isInfinite(value)) {
			throw new InvalidSettingException(name, "must be zero or positive (per million tokens)", value);
		}
	}

}
