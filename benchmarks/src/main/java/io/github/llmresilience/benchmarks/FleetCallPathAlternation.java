package io.github.llmresilience.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Fleet mode on against off on one busy machine, where two JMH runs minutes apart differ
 * by more than the difference sought: both engines of {@link FleetBenchmark} in one JVM,
 * measured in alternating blocks of half a second (which goes first alternates too), so
 * that a change of the machine's load falls on both sides of a pair. Prints the medians
 * and the spread of the pairs' ratios.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.llmresilience.benchmarks.FleetCallPathAlternation
 * </pre>
 */
public final class FleetCallPathAlternation {

	/**
	 * What the pairs measured, sorted.
	 *
	 * @param off ns per call with fleet mode off, one per pair
	 * @param on ns per call with fleet mode on, one per pair
	 * @param ratios on over off, one per pair
	 */
	record Measured(List<Double> off, List<Double> on, List<Double> ratios) {

		String line() {
			int n = this.ratios.size();
			return String.format(Locale.ROOT,
					"%d pairs: fleet off median %.1f ns, fleet on median %.1f ns; ratio on/off per pair: median %.3f, "
							+ "quartiles %.3f to %.3f, min %.3f, max %.3f",
					n, median(this.off), median(this.on), median(this.ratios), this.ratios.get(n / 4),
					this.ratios.get((3 * n) / 4 - 1), this.ratios.get(0), this.ratios.get(n - 1));
		}

	}

	private static volatile Object sink;

	private FleetCallPathAlternation() {
	}

	public static void main(String[] args) {
		System.out.println(measure(10, 40, 500_000_000L).line());
		// The fleet's threads are daemons, but Lettuce's event loops are not.
		System.exit(0);
	}

	static Measured measure(int warmupPairs, int pairs, long blockNanos) {
		FleetBenchmark benchmark = new FleetBenchmark();
		benchmark.setUp();
		try {
			for (int i = 0; i < warmupPairs; i++) {
				block(benchmark, false, blockNanos);
				block(benchmark, true, blockNanos);
			}
			List<Double> off = new ArrayList<>();
			List<Double> on = new ArrayList<>();
			List<Double> ratios = new ArrayList<>();
			for (int i = 0; i < pairs; i++) {
				boolean onFirst = (i % 2 == 1);
				double first = block(benchmark, onFirst, blockNanos);
				double second = block(benchmark, !onFirst, blockNanos);
				double offNanos = onFirst ? second : first;
				double onNanos = onFirst ? first : second;
				off.add(offNanos);
				on.add(onNanos);
				ratios.add(onNanos / offNanos);
			}
			Collections.sort(off);
			Collections.sort(on);
			Collections.sort(ratios);
			return new Measured(off, on, ratios);
		}
		finally {
			benchmark.checkStillClosed();
		}
	}

	/** ns per call over one block of calls on one engine. */
	private static double block(FleetBenchmark benchmark, boolean on, long blockNanos) {
		long start = System.nanoTime();
		long end = start + blockNanos;
		long calls = 0;
		long now;
		Object last = null;
		do {
			for (int i = 0; i < 1000; i++) {
				last = on ? benchmark.fleetOn() : benchmark.fleetOff();
			}
			calls += 1000;
			now = System.nanoTime();
		}
		while (now < end);
		sink = last;
		return (now - start) / (double) calls;
	}

	private static double median(List<Double> sorted) {
		int n = sorted.size();
		return (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
	}

}
