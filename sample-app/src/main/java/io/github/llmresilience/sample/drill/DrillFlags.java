package io.github.llmresilience.sample.drill;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The drill flags that switch a library mechanism on or off: each becomes the mechanism's
 * {@code llm.resilience.*} properties, added to the command line before the application
 * starts, so that the drill measures the engine those properties configure (and a
 * property in a yml file cannot quietly win over the flag).
 *
 * <ul>
 * <li>{@code --overload-control=on|off}: {@code llm.resilience.concurrency.enabled} and
 * {@code llm.resilience.client-throttling.enabled}</li>
 * <li>{@code --hedging=on|off}: {@code llm.resilience.hedging.enabled}</li>
 * <li>{@code --breaker=off}: {@code llm.resilience.client-throttling.enabled=false} too,
 * since the drills' baseline is a worker without protection: with client-side throttling
 * on, most of its attempts would be refused before they reach the failing provider</li>
 * </ul>
 */
public final class DrillFlags {

	/** Client-side throttling's switch, off with the breaker for the baseline. */
	static final String CLIENT_THROTTLING = "llm.resilience.client-throttling.enabled";

	private DrillFlags() {
	}

	/**
	 * The arguments with the properties their switch flags stand for appended.
	 * @throws IllegalArgumentException when a switch flag is neither {@code on} nor
	 * {@code off}
	 */
	public static String[] withProperties(String[] args) {
		List<String> expanded = new ArrayList<>(Arrays.asList(args));
		for (String arg : args) {
			switchFlag(arg, "overload-control", BrownoutDrill.OVERLOAD_CONTROL, expanded);
			switchFlag(arg, "hedging", List.of(TailDrill.HEDGING), expanded);
			if (arg.equals("--breaker=off")) {
				expanded.add("--" + CLIENT_THROTTLING + "=false");
			}
		}
		return expanded.toArray(String[]::new);
	}

	private static void switchFlag(String arg, String flag, List<String> properties, List<String> expanded) {
		String prefix = "--" + flag + "=";
		if (!arg.startsWith(prefix)) {
			return;
		}
		boolean on = switch (arg.substring(prefix.length())) {
			case "on" -> true;
			case "off" -> false;
			default -> throw new IllegalArgumentException("--" + flag + " must be on or off, was '" + arg + "'");
		};
		properties.forEach((property) -> expanded.add("--" + property + "=" + on));
	}

}
