package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.Locale;

/** How the drills' reports print their figures. */
final class Figures {

	private Figures() {
	}

	/** A duration in seconds, as {@link #trim}. */
	static String seconds(Duration duration) {
		return trim(duration.toMillis() / 1000.0);
	}

	/** One decimal, two below a second, no trailing zeros. */
	static String trim(double value) {
		String text = String.format(Locale.ROOT, (Math.abs(value) < 1) ? "%.2f" : "%.1f", value);
		text = text.contains(".") ? text.replaceAll("0+$", "") : text;
		return text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
	}

}
