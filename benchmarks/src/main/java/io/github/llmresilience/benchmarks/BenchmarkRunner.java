package io.github.llmresilience.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark through JMH's API, each with the allocation profiler, and prints
 * one markdown table in which every row is compared with its baseline from the same run:
 * on a shared 2-core machine absolute numbers drift from run to run, ratios much less.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar                 # everything, 6 to 8 minutes
 * java -jar benchmarks/target/benchmarks.jar success failfast  # some groups
 * java -jar benchmarks/target/benchmarks.jar --quick         # a smoke run: numbers are noise
 * java -jar benchmarks/target/benchmarks.jar --fixtures=../shared/fixtures/vendor-errors.json
 * java -jar benchmarks/target/benchmarks.jar json            # on request only: JSON reading, 2 to 3 minutes
 * java -jar benchmarks/target/benchmarks.jar fleet           # on request only (needs Redis): fleet mode, 1 minute
 * java -jar benchmarks/target/benchmarks.jar growth          # on request only (needs Docker): the fleet's growth, 4 minutes
 * </pre>
 */
public final class BenchmarkRunner {

	/** How long each group warms up and measures; see {@link #plan(boolean)}. */
	record Timing(int forks, int warmups, Duration warmup, int measurements, Duration measurement) {
	}

	/**
	 * One JMH run: the benchmarks it includes, with how many threads.
	 *
	 * @param name the group's name, as given on the command line
	 * @param include JMH's include pattern
	 * @param threads the benchmark threads
	 * @param timing the run's warmup and measurement
	 * @param onRequest whether it runs only when named, not in a run of everything
	 */
	record Group(String name, String include, int threads, Timing timing, boolean onRequest) {

		Group(String name, String include, int threads, Timing timing) {
			this(name, include, threads, timing, false);
		}

		boolean runs(List<String> only) {
			return only.isEmpty() ? !this.onRequest : only.stream().anyMatch(this.name::startsWith);
		}

	}

	/**
	 * One line of the table.
	 *
	 * @param key the result it shows: benchmark method, parameter and thread count
	 * @param label what it measures
	 * @param baseline the key of the row it is divided by, or {@code null} for a baseline
	 * @param target the ratio the issue asks for, or an empty string
	 */
	record Row(String key, String label, @Nullable String baseline, String target) {
	}

	/** What one row's run measured. */
	record Measured(int threads, double medianNanos, double error, double bytesPerOp, double allocMbPerSec) {
	}

	private static final String SUCCESS = SuccessPathBenchmark.class.getName();

	private static final String PARTS = HotPathPartsBenchmark.class.getName();

	private static final String FAIL_FAST = FailFastBenchmark.class.getName();

	private static final String CLASSIFY = ClassificationBenchmark.class.getName();

	private static final String JSON = ProviderJsonBenchmark.class.getName();

	private static final String COMPOSITION = Resilience4jCompositionBenchmark.class.getName();

	private static final String FLEET = FleetBenchmark.class.getName();

	private static final String TRACING = TracingBenchmark.class.getName();

	/** The group that also measures Redis commands (see {@link FleetRedisCommands}). */
	static final String FLEET_GROUP = "fleet";

	private BenchmarkRunner() {
	}

	public static void main(String[] args) throws Exception {
		if (Arrays.asList(args).contains(FleetGrowth.GROUP)) {
			// Not JMH: a simulation of its own (a Redis container, many simulated pods).
			FleetGrowth.main(args);
			return;
		}
		boolean quick = false;
		String fixtures = "";
		List<String> only = new ArrayList<>();
		for (String arg : args) {
			if (arg.equals("--quick")) {
				quick = true;
			}
			else if (arg.startsWith("--fixtures=")) {
				fixtures = arg.substring("--fixtures=".length());
			}
			else if (arg.equals("--help") || arg.equals("-h")) {
				System.out.println("usage: java -jar benchmarks.jar [--quick] [--fixtures=PATH] [GROUP...]");
				System.out.println(
						"groups: success, contention, failfast, classify (default: all); json, fleet and growth on request");
				System.out.println("JMH's own command line: java -cp benchmarks.jar org.openjdk.jmh.Main -h");
				return;
			}
			else {
				only.add(arg);
			}
		}
		Instant started = Instant.now();
		double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
		Map<String, Measured> results = new LinkedHashMap<>();
		FleetRedisCommands.Measured commands = null;
		for (Group group : plan(quick)) {
			if (!group.runs(only)) {
				continue;
			}
			if (group.name().equals(FLEET_GROUP)) {
				commands = FleetRedisCommands.measure(4, 1000, quick ? Duration.ofSeconds(2) : Duration.ofSeconds(5),
						quick ? Duration.ofSeconds(3) : Duration.ofSeconds(20));
			}
			ChainedOptionsBuilder options = new OptionsBuilder().include(group.include())
				.threads(group.threads())
				.forks(group.timing().forks())
				.warmupIterations(group.timing().warmups())
				.warmupTime(TimeValue.milliseconds(group.timing().warmup().toMillis()))
				.measurementIterations(group.timing().measurements())
				.measurementTime(TimeValue.milliseconds(group.timing().measurement().toMillis()))
				.addProfiler(GCProfiler.class)
				// The same heap for every fork, touched up front, so that neither GC
				// sizing nor the first touch of fresh pages differs between runs.
				.jvmArgsAppend("-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch")
				.shouldFailOnError(true);
			if (!fixtures.isBlank()) {
				options.param("fixtures", fixtures);
			}
			for (RunResult result : new Runner(options.build()).run()) {
				results.put(key(result), measured(result));
			}
		}
		Duration took = Duration.between(started, Instant.now());
		double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
		System.out.println();
		System.out.println(header(took, loadBefore, loadAfter, quick));
		System.out.println(table(rows(), results));
		if (commands != null) {
			System.out.println(FleetRedisCommands.table(commands));
		}
	}

	/**
	 * The runs. One fork each, long enough for stable medians on 2 busy cores: 5 s of
	 * warmup (profiles showed C2 still compiling the fail-fast path after 3 s when other
	 * builds shared the cores), then 8 one-second samples, whose median moves much less
	 * between runs than their mean. Classification is pure computation and settles
	 * faster.
	 */
	static List<Group> plan(boolean quick) {
		Timing calls = quick ? new Timing(1, 1, Duration.ofMillis(200), 2, Duration.ofMillis(200))
				: new Timing(1, 5, Duration.ofSeconds(1), 8, Duration.ofSeconds(1));
		Timing compute = quick ? calls : new Timing(1, 3, Duration.ofSeconds(1), 5, Duration.ofSeconds(1));
		String pair = SUCCESS + "\\.(bareResilience4j|llmResilienceCall|llmResilienceCallParallelScheduler)$";
		// Before and after a change of JSON reader: the success path (which must parse no
		// JSON) and single bodies, against the bare breaker of the same run. Two forks,
		// as the rows are compared between two runs rather than within one.
		Timing json = quick ? calls : new Timing(2, 3, Duration.ofSeconds(1), 5, Duration.ofSeconds(1));
		String jsonInclude = SUCCESS + "\\.(bareResilience4j|llmResilienceCall)$|" + JSON + "\\.";
		// Overload control's rows (client-side throttling off, adaptive concurrency on)
		// beside the success path's own: on request, so that a run of everything keeps
		// within the time docs/benchmarks.md gives.
		String overload = SUCCESS + "\\.(bareResilience4j|llmResilienceCall|llmResilienceCallWith\\w+)$";
		return List.of(
				new Group("success", SUCCESS + "\\.(?!llmResilienceCallWith)|" + PARTS + "\\.|" + COMPOSITION + "\\.",
						1, calls),
				new Group("contention-2", pair, 2, calls), new Group("contention-8", pair, 8, calls),
				new Group("failfast", FAIL_FAST + "\\.", 1, calls), new Group("classify", CLASSIFY + "\\.", 1, compute),
				// On request: the whole run stays within the time docs/benchmarks.md
				// gives.
				new Group("tracing", TRACING + "\\.", 1, calls, true), new Group("json", jsonInclude, 1, json, true),
				new Group("overload", overload, 1, calls, true),
				// Needs a Redis (LLM_RESILIENCE_REDIS_URL) and redis-server on the PATH.
				new Group(FLEET_GROUP, FLEET + "\\.", 1, calls, true));
	}

	/** The table's lines, in order, each with its baseline. */
	static List<Row> rows() {
		List<Row> rows = new ArrayList<>();
		String bare = "bareResilience4j@1";
		rows.add(new Row(bare, "bare Resilience4j breaker, default config (baseline)", null, ""));
		rows.add(new Row("llmResilienceCall@1", "LlmResilience.call, one-target chain", bare, "<= 2.0"));
		rows.add(new Row("llmResilienceCallWithoutThrottling@1",
				"LlmResilience.call, client-side throttling off (on by default)", bare, ""));
		rows.add(new Row("llmResilienceCallWithConcurrency@1",
				"LlmResilience.call, adaptive concurrency on (off by default)", bare, ""));
		rows.add(new Row("bareResilience4jMicrometer@1",
				"bare Resilience4j breaker with resilience4j-micrometer's tagged meters (SimpleMeterRegistry) (baseline)",
				null, ""));
		rows.add(new Row("llmResilienceCallMicrometer@1",
				"LlmResilience.call with the starter's Micrometer meters (SimpleMeterRegistry)",
				"bareResilience4jMicrometer@1", "<= 2.0"));
		rows.add(new Row("llmResilienceCallOnTarget@1", "LlmResilience.callOnTarget", bare, "<= 2.0"));
		rows.add(new Row("llmResilienceCallParallelScheduler@1",
				"former default: LlmResilience.call, timeouts on Schedulers.parallel()", bare, ""));
		rows.add(new Row("bareResilience4jReactive@1", "bare Resilience4j Reactor operator, block() (baseline)", null,
				""));
		rows.add(new Row("llmResilienceExecute@1", "LlmResilience.execute, block()", "bareResilience4jReactive@1",
				"<= 2.0"));
		rows.add(new Row("llmResilienceExecuteParallelScheduler@1",
				"former default: LlmResilience.execute, timeouts on Schedulers.parallel()",
				"bareResilience4jReactive@1", ""));
		rows.add(new Row("timeoutAlarm@1", "part: timeout alarm, schedule + dispose on Schedulers.parallel()", bare,
				""));
		rows.add(new Row("timeoutAlarmCoalescingTimer@1",
				"part: the same alarm as a timed task on the coalescing timer (a reactive attempt's)", bare, ""));
		rows.add(new Row("timeoutAlarmThreadOwn@1",
				"part: the calling thread's own alarm on the coalescing timer, armed + disarmed (a blocking attempt's)",
				bare, ""));
		rows.add(new Row("resilience4jWithTransitionListener@1", "part: bare breaker + a state-transition listener",
				bare, ""));
		rows.add(new Row("accountAndGateChecks@1", "part: account usable + quota scope open checks", bare, ""));
		rows.add(new Row("ourBreakerPermitAndSuccess@1", "part: our Breaker, permit + success", bare, ""));
		rows.add(new Row("resilience4jComposedOnExecutor@1",
				"hand-assembled Resilience4j: Retry + CircuitBreaker + RateLimiter + TimeLimiter, call on a pool thread",
				bare, ""));
		rows.add(new Row("resilience4jComposedCompletedFuture@1",
				"the same four decorators around a completed future (limits nothing: their own cost)", bare, ""));
		rows.add(new Row("fleetOff@1", "fleet mode off: LlmResilience.call, one-target chain (baseline)", null, ""));
		rows.add(new Row("fleetOn@1", "fleet mode on (Redis, sync every 1 s): LlmResilience.call", "fleetOff@1",
				"<= 1.1"));
		for (int threads : new int[] { 2, 8 }) {
			String baseline = "bareResilience4j@" + threads;
			rows.add(new Row(baseline, "bare Resilience4j, " + threads + " threads (baseline)", null, ""));
			rows.add(new Row("llmResilienceCall@" + threads, "LlmResilience.call, " + threads + " threads", baseline,
					"<= 2.0"));
			rows.add(new Row("llmResilienceCallParallelScheduler@" + threads,
					"former default: LlmResilience.call on Schedulers.parallel(), " + threads + " threads", baseline,
					""));
		}
		rows.add(new Row("untraced@1", "traces: LlmResilience.call without an ObservationRegistry (baseline)", null,
				""));
		rows.add(new Row("noopRegistry@1", "traces: the same with ObservationRegistry.NOOP (no trace)", "untraced@1",
				"<= 1.05"));
		rows.add(new Row("observed@1",
				"traces: the same with a registry and a do-nothing handler (a call and an attempt Observation)",
				"untraced@1", ""));
		String http = "http503Attempt@1";
		rows.add(new Row(http, "one attempt: loopback HTTP 503, JDK HttpClient (baseline)", null, ""));
		rows.add(new Row("breakerOpen@1", "fail fast: breaker open", http, "<= 0.001"));
		rows.add(new Row("scopeGated@1", "fail fast: quota scope gated", http, "<= 0.001"));
		for (String caseClass : new String[] { "THROTTLED", "AVAILABILITY", "QUOTA", "CREDENTIAL", "REQUEST",
				"CONTENT_FILTER", ClassificationBenchmark.SUCCESS_200, ClassificationBenchmark.ERROR_64KIB,
				ClassificationBenchmark.SUCCESS_64KIB }) {
			rows.add(new Row("classify[" + caseClass + "]@1", "classify: " + describe(caseClass), http, ""));
		}
		for (String answer : new String[] { "openai-429-insufficient-quota", "anthropic-529-overloaded",
				"gemini-429-free-tier-input-tpm", "anthropic-sse-error-overloaded-midstream",
				"openai-stream-chat-error-chunk", ProviderJsonBenchmark.OPENAI_CHUNK,
				ProviderJsonBenchmark.ERROR_64KIB }) {
			rows.add(new Row("classifyAnswer[" + answer + "]@1", "json: " + answer, bare, ""));
		}
		return rows;
	}

	private static String describe(String caseClass) {
		return switch (caseClass) {
			case ClassificationBenchmark.SUCCESS_200 -> "200 chat completion (1 KiB)";
			case ClassificationBenchmark.ERROR_64KIB -> "64 KiB 400 error body";
			case ClassificationBenchmark.SUCCESS_64KIB -> "64 KiB 200 completion";
			default -> caseClass + " fixtures (mean per case)";
		};
	}

	static String key(RunResult result) {
		String method = result.getParams().getBenchmark();
		method = method.substring(method.lastIndexOf('.') + 1);
		String caseClass = result.getParams().getParam("caseClass");
		if (caseClass == null) {
			caseClass = result.getParams().getParam("answer");
		}
		return method + ((caseClass != null) ? "[" + caseClass + "]" : "") + "@" + result.getParams().getThreads();
	}

	static Measured measured(RunResult result) {
		List<Double> scores = new ArrayList<>();
		for (BenchmarkResult fork : result.getBenchmarkResults()) {
			for (IterationResult iteration : fork.getIterationResults()) {
				scores.add(iteration.getPrimaryResult().getScore());
			}
		}
		Result<?> primary = result.getPrimaryResult();
		return new Measured(result.getParams().getThreads(), median(scores), primary.getScoreError(),
				secondary(result, "gc.alloc.rate.norm"), secondary(result, "gc.alloc.rate"));
	}

	private static double secondary(RunResult result, String name) {
		for (Map.Entry<String, Result> entry : result.getSecondaryResults().entrySet()) {
			// JMH prefixes profiler results with a middle dot in some versions.
			if (entry.getKey().replace("\u00b7", "").equals(name)) {
				return entry.getValue().getScore();
			}
		}
		return Double.NaN;
	}

	static double median(Collection<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	static String header(Duration took, double loadBefore, double loadAfter, boolean quick) {
		Runtime runtime = Runtime.getRuntime();
		return String.format(Locale.ROOT,
				"llm-resilience benchmarks, %s%n%s %s (%s), %d cores, %d MiB max heap of the runner, load average "
						+ "%.2f before and %.2f after, %d s in all%s%n",
				Instant.now().toString().substring(0, 19) + "Z", System.getProperty("java.vm.name"),
				System.getProperty("java.runtime.version"), System.getProperty("java.vm.vendor"),
				runtime.availableProcessors(), runtime.maxMemory() / (1024 * 1024), loadBefore, loadAfter,
				took.toSeconds(), quick ? "; QUICK RUN: the numbers are noise" : "");
	}

	/**
	 * The markdown table. ns/op is the median of the measurement iterations (per thread
	 * for several threads); the error is JMH's 99.9 % confidence half-width of the mean;
	 * ops/s counts every thread; the ratio is this row's median over its baseline's
	 * median.
	 */
	static String table(List<Row> rows, Map<String, Measured> results) {
		StringBuilder out = new StringBuilder();
		out.append("| benchmark | threads | ns/op (median) | ± error | ops/s (all threads) | B/op | alloc MB/s "
				+ "| ratio to baseline | target |\n");
		out.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		for (Row row : rows) {
			Measured measured = results.get(row.key());
			if (measured == null) {
				continue;
			}
			Measured baseline = (row.baseline() != null) ? results.get(row.baseline()) : null;
			String ratio = (row.baseline() == null) ? "1 (baseline)" : (baseline == null) ? "no baseline in this run"
					: ratio(measured.medianNanos() / baseline.medianNanos());
			String target = row.target().isEmpty() ? ""
					: row.target() + ((baseline == null) ? "" : meets(row.target(), measured, baseline));
			out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |%n", row.label(),
					measured.threads(), number(measured.medianNanos()), number(measured.error()),
					number(measured.threads() * 1e9 / measured.medianNanos()), number(measured.bytesPerOp()),
					number(measured.allocMbPerSec()), ratio, target));
		}
		return out.toString();
	}

	private static String meets(String target, Measured measured, Measured baseline) {
		double limit = Double.parseDouble(target.substring(target.indexOf(' ') + 1));
		return (measured.medianNanos() / baseline.medianNanos() <= limit) ? " met" : " NOT met";
	}

	static String ratio(double ratio) {
		if (ratio < 0.01) {
			return String.format(Locale.ROOT, "%.5f (1/%s)", ratio, number(1 / ratio));
		}
		return String.format(Locale.ROOT, "%.2f", ratio);
	}

	static String number(double value) {
		if (Double.isNaN(value)) {
			return "n/a";
		}
		if (Math.abs(value) >= 100) {
			return String.format(Locale.ROOT, "%,.0f", value);
		}
		return String.format(Locale.ROOT, "%.1f", value);
	}

}
