package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** How the drills' reports print their figures. */
final class Figures {

	private Figures() {
	}

	/** A duration in seconds, as {@link #trim}. */
	static String seconds(Duration duration) {
		return trim(duration.toMillis() / 1000.0);
	}

	/**
	 * The nearest-rank percentile of some durations: the smallest that at least
	 * {@code percent} % of them do not exceed; zero when there are none.
	 */
	static Duration percentile(List<Duration> durations, double percent) {
		if (durations.isEmpty()) {
			return Duration.ZERO;
		}
		List<Duration> sorted = durations.stream().sorted().toList();
		int rank = (int) Math.ceil(percent / 100 * sorted.size());
		return sorted.get(Math.max(0, Math.min(sorted.size(), rank) - 1));
	}

	/** One decimal, two below a second, no trailing zeros. */
	static String trim(double value) {
		String text = String.format(Locale.ROOT, (Math.abs(value) < 1) ? "%.2f" : "%.1f", value);
		text = text.contains(".") ? text.replaceAll("0+$", "") : text;
		return text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
	}

}
