package io.github.llmresilience.benchmarks;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.github.llmresilience.execute.LlmUnavailableException;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Runs no benchmark: checks, once each, that every benchmark measures what its name says,
 * and that the table and its plan hold together.
 */
class BenchmarkSetupTests {

	private static final List<Class<?>> BENCHMARKS = List.of(SuccessPathBenchmark.class, HotPathPartsBenchmark.class,
			FailFastBenchmark.class, ClassificationBenchmark.class, ProviderJsonBenchmark.class,
			Resilience4jCompositionBenchmark.class, FleetBenchmark.class, TracingBenchmark.class);

	@Test
	void everyTracingBenchmarkAnswers() {
		TracingBenchmark benchmark = new TracingBenchmark();
		benchmark.setUp();
		assertThat(benchmark.untraced()).isEqualTo(SuccessPathBenchmark.ANSWER);
		assertThat(benchmark.noopRegistry()).isEqualTo(SuccessPathBenchmark.ANSWER);
		assertThat(benchmark.observed()).isEqualTo(SuccessPathBenchmark.ANSWER);
	}

	@Test
	void everySuccessPathBenchmarkAnswers() {
		SuccessPathBenchmark benchmark = new SuccessPathBenchmark();
		benchmark.setUp();
		try {
			assertThat(benchmark.bareResilience4j()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.bareResilience4jMicrometer()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.llmResilienceCall()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.llmResilienceCallOnTarget()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.llmResilienceCallParallelScheduler()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.llmResilienceCallMicrometer()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.bareResilience4jReactive()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.llmResilienceExecute()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.llmResilienceExecuteParallelScheduler()).isEqualTo(SuccessPathBenchmark.ANSWER);
		}
		finally {
			benchmark.checkStillClosed();
		}
	}

	@Test
	void hotPathPartsRun() {
		HotPathPartsBenchmark benchmark = new HotPathPartsBenchmark();
		benchmark.setUp();
		try {
			assertThat(benchmark.timeoutAlarm().isDisposed()).isTrue();
			assertThat(benchmark.timeoutAlarmCoalescingTimer().isDisposed()).isTrue();
			assertThat(benchmark.timeoutAlarmThreadOwn().isDisposed()).isTrue();
			assertThat(benchmark.resilience4jWithTransitionListener()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.ourBreakerPermitAndSuccess()).isTrue();
			assertThat(benchmark.accountAndGateChecks()).isTrue();
		}
		finally {
			benchmark.checkStillClosed();
		}
	}

	@Test
	void failFastBenchmarksFailFastAndTheBaselineGets503() throws Exception {
		FailFastBenchmark benchmark = new FailFastBenchmark();
		benchmark.setUp();
		try {
			benchmark.gate();
			assertThat(benchmark.breakerOpen()).isInstanceOf(LlmUnavailableException.class);
			assertThat(benchmark.scopeGated()).isInstanceOf(LlmUnavailableException.class);
			assertThat(benchmark.http503Attempt().body()).contains("server_error");
		}
		finally {
			benchmark.tearDown();
		}
	}

	@Test
	void everyCaseClassLoadsAndIsClassifiedAsExpected() throws Exception {
		String[] classes = ClassificationBenchmark.class.getField("caseClass").getAnnotation(Param.class).value();
		for (String caseClass : classes) {
			ClassificationBenchmark benchmark = new ClassificationBenchmark();
			benchmark.caseClass = caseClass;
			benchmark.fixtures = "";
			// Throws when a case takes another path than its expected outcome.
			benchmark.setUp();
			assertThat(benchmark.classify()).isNotNull();
		}
		assertThat(VendorFixtures.load("")).hasSize(48);
		assertThat(ClassificationBenchmark.largeError()).hasSize(ClassificationBenchmark.SIXTY_FOUR_KIB);
		assertThat(ClassificationBenchmark.largeCompletion()).hasSize(ClassificationBenchmark.SIXTY_FOUR_KIB);
	}

	@Test
	void everyJsonAnswerLoadsAndIsClassifiedAsExpected() throws Exception {
		String[] answers = ProviderJsonBenchmark.class.getField("answer").getAnnotation(Param.class).value();
		for (String answer : answers) {
			ProviderJsonBenchmark benchmark = new ProviderJsonBenchmark();
			benchmark.answer = answer;
			benchmark.fixtures = "";
			// Throws when an answer takes another path than its expected outcome.
			benchmark.setUp();
			assertThat(benchmark.classifyAnswer()).isNotNull();
		}
		assertThat(BenchmarkRunner.plan(false)).filteredOn(BenchmarkRunner.Group::onRequest)
			.extracting(BenchmarkRunner.Group::name)
			.containsExactly("tracing", "json", "overload", BenchmarkRunner.FLEET_GROUP);
	}

	@Test
	void theHandAssembledResilience4jCompositionAnswers() throws Exception {
		Resilience4jCompositionBenchmark benchmark = new Resilience4jCompositionBenchmark();
		benchmark.setUp();
		try {
			assertThat(benchmark.resilience4jComposedOnExecutor()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.resilience4jComposedCompletedFuture()).isEqualTo(SuccessPathBenchmark.ANSWER);
		}
		finally {
			benchmark.tearDown();
		}
	}

	@Test
	void theFleetBenchmarkAnswersWithFleetModeOnAndOff() {
		assumeRedis();
		FleetBenchmark benchmark = new FleetBenchmark();
		benchmark.setUp();
		try {
			assertThat(benchmark.fleetOff()).isEqualTo(SuccessPathBenchmark.ANSWER);
			assertThat(benchmark.fleetOn()).isEqualTo(SuccessPathBenchmark.ANSWER);
		}
		finally {
			benchmark.checkStillClosed();
		}
	}

	@Test
	void theAlternatingFleetMeasurementMeasuresBothSides() {
		assumeRedis();
		FleetCallPathAlternation.Measured measured = FleetCallPathAlternation.measure(1, 4, 10_000_000L);
		assertThat(measured.off()).hasSize(4).allSatisfy((nanos) -> assertThat(nanos).isPositive());
		assertThat(measured.on()).hasSize(4).allSatisfy((nanos) -> assertThat(nanos).isPositive());
		assertThat(measured.line()).startsWith("4 pairs: fleet off median");
	}

	@Test
	void redisCommandsAreCountedPerSyncNotPerCall() throws Exception {
		assumeThat(FleetRedisCommands.available()).as("redis-server on the PATH (.ci/run installs it)").isTrue();
		FleetRedisCommands.Measured measured = FleetRedisCommands.measure(2, 200, Duration.ofSeconds(1),
				Duration.ofSeconds(2));
		assertThat(measured.calls()).isPositive();
		assertThat(measured.commands()).containsKey("evalsha");
		// A sync a second per pod, give or take one at each end of the window; far from
		// one per call (Redis also counts the commands each script runs: not sent).
		assertThat(measured.sentCommands()).isPositive()
			.isLessThanOrEqualTo(2L * (Math.round(measured.seconds()) + 2))
			.isLessThan(measured.calls() / 10);
		assertThat(FleetRedisCommands.table(measured)).contains("| fleet mode on, a steady load");
	}

	@Test
	void theGrowthSimulationMeasuresOneSizeOnARedisContainer() throws Exception {
		boolean docker;
		try {
			docker = org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException ex) {
			docker = false;
		}
		if (!docker && "true".equalsIgnoreCase(System.getenv("LLM_RESILIENCE_DOCKER_REQUIRED"))) {
			throw new AssertionError("No Docker engine answers, and LLM_RESILIENCE_DOCKER_REQUIRED is true");
		}
		assumeThat(docker).as("a Docker engine for Testcontainers (.ci/run starts one)").isTrue();
		try (var redis = FleetGrowth.container()) {
			redis.start();
			FleetGrowth.Result result = FleetGrowth.run(redis.getHost(), redis.getMappedPort(6379), 5, 3,
					Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(2));
			// Five pods, a sync every 200 ms each: about 25 a second (a loaded machine
			// skips some).
			assertThat(result.syncs()).isPositive();
			assertThat(result.p50Millis()).isPositive().isLessThanOrEqualTo(result.p99Millis());
			assertThat(result.commandsPerSecond()).isGreaterThan(result.syncs() / result.seconds());
			assertThat(result.bytesPerSync()).isPositive();
			assertThat(result.cpuPercent()).isNotNegative();
			assertThat(result.cpuMillisPerSync()).isNotNegative();
			assertThat(result.row()).startsWith("| 5 | 3 |");
		}
	}

	private static void assumeRedis() {
		URI uri = URI.create(System.getenv().getOrDefault("LLM_RESILIENCE_REDIS_URL", "redis://127.0.0.1:6379"));
		int port = (uri.getPort() > 0) ? uri.getPort() : 6379;
		boolean reachable;
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(uri.getHost(), port), 1000);
			reachable = true;
		}
		catch (IOException ex) {
			reachable = false;
		}
		assumeThat(reachable).as("a Redis server at %s:%d (LLM_RESILIENCE_REDIS_URL)", uri.getHost(), port).isTrue();
	}

	@Test
	void bundledFixturesAreTheSharedOnes() throws Exception {
		String shared = System.getProperty("llm.resilience.fixtures");
		Path file = (shared != null) ? Path.of(shared, "vendor-errors.json") : null;
		if (file == null || !Files.exists(file)) {
			// A clone outside the workplace has only the bundled copy, which is what
			// runs.
			return;
		}
		try (var in = VendorFixtures.class.getResourceAsStream(VendorFixtures.BUNDLED)) {
			assertThat(in).isNotNull();
			assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(Files.readString(file));
		}
	}

	@Test
	void everyRowNamesABenchmarkOfThePlanAndEveryBaselineIsARow() {
		Map<String, Integer> threadsByMethod = new LinkedHashMap<>();
		List<String> keys = new ArrayList<>();
		for (BenchmarkRunner.Row row : BenchmarkRunner.rows()) {
			keys.add(row.key());
			String method = row.key().replaceAll("[\\[@].*", "");
			int threads = Integer.parseInt(row.key().substring(row.key().indexOf('@') + 1));
			assertThat(planned(method, threads)).as(row.key()).isTrue();
			threadsByMethod.merge(method, 1, Integer::sum);
		}
		for (BenchmarkRunner.Row row : BenchmarkRunner.rows()) {
			if (row.baseline() != null) {
				assertThat(keys).as(row.key()).contains(row.baseline());
			}
		}
		assertThat(keys).doesNotHaveDuplicates();
	}

	@Test
	void thePlanFitsInTheTimeTheReadmePromises() {
		// Fork start-up and teardown on a busy 2-core machine: measured at about 2 s.
		Duration perFork = Duration.ofSeconds(3);
		Duration total = Duration.ZERO;
		for (BenchmarkRunner.Group group : BenchmarkRunner.plan(false)) {
			if (group.onRequest()) {
				// Not part of a run of everything.
				continue;
			}
			BenchmarkRunner.Timing timing = group.timing();
			Duration one = timing.warmup()
				.multipliedBy(timing.warmups())
				.plus(timing.measurement().multipliedBy(timing.measurements()))
				.plus(perFork);
			total = total.plus(one.multipliedBy((long) runs(group) * timing.forks()));
		}
		assertThat(total).isLessThan(Duration.ofMinutes(9));
	}

	@Test
	void tableComputesRatiosFromMedians() {
		Map<String, BenchmarkRunner.Measured> results = new LinkedHashMap<>();
		results.put("bareResilience4j@1", new BenchmarkRunner.Measured(1, 50, 1, 0, 0));
		results.put("llmResilienceCall@1", new BenchmarkRunner.Measured(1, 55, 1, 48, 10));
		String table = BenchmarkRunner.table(BenchmarkRunner.rows(), results);
		assertThat(table).contains("| 1.10 | <= 2.0 met |").contains("1 (baseline)");
		assertThat(BenchmarkRunner.median(List.of(3.0, 1.0, 2.0, 10.0))).isEqualTo(2.5);
		assertThat(BenchmarkRunner.ratio(0.0005)).isEqualTo("0.00050 (1/2,000)");
	}

	/** Whether the plan runs this benchmark method with this many threads. */
	private static boolean planned(String method, int threads) {
		for (BenchmarkRunner.Group group : BenchmarkRunner.plan(false)) {
			if (group.threads() != threads) {
				continue;
			}
			for (Class<?> type : BENCHMARKS) {
				if (benchmarkMethod(type, method)
						&& Pattern.compile(group.include()).matcher(type.getName() + "." + method).find()) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * How many benchmark runs a group makes: its methods times their parameter values.
	 */
	private static int runs(BenchmarkRunner.Group group) {
		Pattern include = Pattern.compile(group.include());
		int runs = 0;
		for (Class<?> type : BENCHMARKS) {
			int params = 1;
			for (Field field : type.getFields()) {
				Param param = field.getAnnotation(Param.class);
				if (param != null) {
					params *= param.value().length;
				}
			}
			for (Method method : type.getMethods()) {
				if (method.isAnnotationPresent(Benchmark.class)
						&& include.matcher(type.getName() + "." + method.getName()).find()) {
					runs += params;
				}
			}
		}
		return runs;
	}

	private static boolean benchmarkMethod(Class<?> type, String name) {
		for (Method method : type.getMethods()) {
			if (method.getName().equals(name) && method.isAnnotationPresent(Benchmark.class)) {
				return true;
			}
		}
		return false;
	}

}
