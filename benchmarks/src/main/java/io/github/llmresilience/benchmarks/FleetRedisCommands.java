package io.github.llmresilience.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.github.llmresilience.execute.BlockingTargetCall;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.target.Target;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Redis commands a pod in fleet mode sends while it serves a steady 1,000 calls a second:
 * pods on a {@code redis-server} of this measurement's own (so that no other client's
 * commands are counted), each calling through a chain of two targets in two failure
 * domains, paced by one thread a pod. The count is Redis's own: the difference of
 * {@code INFO commandstats} between the start and the end of the measured time (the
 * {@code INFO} commands themselves left out).
 */
final class FleetRedisCommands {

	/**
	 * What was measured.
	 *
	 * @param pods the pods
	 * @param seconds the measured time
	 * @param calls the calls the pods made in that time
	 * @param commands Redis commands by name in that time
	 * @param syncInterval the pods' sync interval
	 */
	record Measured(int pods, double seconds, long calls, Map<String, Long> commands, Duration syncInterval) {

		long totalCommands() {
			return this.commands.values().stream().mapToLong(Long::longValue).sum();
		}

		/**
		 * The commands the pods sent: scripts and the connection's own. Redis also counts
		 * every command a script runs; those are the rest.
		 */
		long sentCommands() {
			return this.commands.entrySet()
				.stream()
				.filter((entry) -> SENT.contains(entry.getKey()))
				.mapToLong(Map.Entry::getValue)
				.sum();
		}

		long scripts() {
			return this.commands.getOrDefault("evalsha", 0L) + this.commands.getOrDefault("eval", 0L);
		}

		double sentPerSecondPerPod() {
			return sentCommands() / this.seconds / this.pods;
		}

		double callsPerSecondPerPod() {
			return this.calls / this.seconds / this.pods;
		}

		/** The design's figure: one script per pod per sync interval. */
		double syncsPerSecondPerPod() {
			return 1e9 / this.syncInterval.toNanos();
		}

	}

	/**
	 * Commands a client sends (a sync is one {@code EVALSHA}, or {@code EVAL} the first
	 * time; the hints are one {@code SUBSCRIBE}; the rest is Lettuce's connection
	 * handshake); every other command in {@code INFO commandstats} ran inside a script.
	 */
	static final java.util.Set<String> SENT = java.util.Set.of("evalsha", "eval", "script|load", "subscribe",
			"unsubscribe", "ping", "hello", "client|setname", "client|setinfo", "select", "auth");

	private static final BlockingTargetCall<String> CALL = (attempt) -> SuccessPathBenchmark.ANSWER;

	private FleetRedisCommands() {
	}

	/** Whether {@code redis-server} is on the PATH. */
	static boolean available() {
		for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (new File(dir, "redis-server").canExecute()) {
				return true;
			}
		}
		return false;
	}

	static Measured measure(int pods, int callsPerSecond, Duration warmup, Duration measurement) throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		Process server = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
				"--save", "", "--appendonly", "no")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		FleetRedis redis = new FleetRedis("127.0.0.1", port);
		LettuceConnectionFactory admin = null;
		List<FleetRedis.Pod> started = new ArrayList<>();
		List<Thread> drivers = new ArrayList<>();
		AtomicBoolean running = new AtomicBoolean(true);
		LongAdder calls = new LongAdder();
		try {
			admin = awaitServer(redis);
			String namespace = FleetRedis.namespace("bench-commands");
			FleetSettings settings = FleetSettings.defaults(namespace);
			for (int i = 1; i <= pods; i++) {
				FleetRedis.Pod pod = redis.pod("pod-" + i, namespace,
						LlmResilience.builder()
							.target(Target.of("primary", "openai"))
							.target(Target.of("secondary", "anthropic"))
							.chain("chat", "primary", "secondary")
							.observer(CountingObserver.create()),
						settings);
				started.add(pod);
				Thread driver = new Thread(() -> drive(pod.resilience(), callsPerSecond, running, calls),
						"fleet-commands-" + i);
				driver.setDaemon(true);
				drivers.add(driver);
			}
			drivers.forEach(Thread::start);
			sleep(warmup);
			Map<String, Long> before = commandStats(admin);
			long callsBefore = calls.sum();
			long start = System.nanoTime();
			sleep(measurement);
			Map<String, Long> after = commandStats(admin);
			long callsAfter = calls.sum();
			double seconds = (System.nanoTime() - start) / 1e9;
			Map<String, Long> delta = new TreeMap<>();
			after.forEach((name, count) -> {
				long d = count - before.getOrDefault(name, 0L);
				if (d > 0 && !name.equals("info")) {
					delta.put(name, d);
				}
			});
			for (FleetRedis.Pod pod : started) {
				if (!pod.resilience().fleet().connected()) {
					throw new IllegalStateException("A pod lost Redis during the measurement");
				}
			}
			return new Measured(pods, seconds, callsAfter - callsBefore, delta, settings.syncInterval());
		}
		finally {
			running.set(false);
			for (Thread driver : drivers) {
				driver.join(5000);
			}
			started.forEach(FleetRedis.Pod::close);
			if (admin != null) {
				admin.destroy();
			}
			server.destroy();
			server.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/** Calls at a steady pace: one every 1/rate s, catching up when late. */
	private static void drive(LlmResilience resilience, int callsPerSecond, AtomicBoolean running, LongAdder calls) {
		long period = 1_000_000_000L / callsPerSecond;
		long next = System.nanoTime();
		while (running.get()) {
			resilience.call("chat", CALL);
			calls.increment();
			next += period;
			long wait = next - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(wait);
			}
		}
	}

	private static LettuceConnectionFactory awaitServer(FleetRedis redis) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (true) {
			LettuceConnectionFactory connection = redis.connect();
			try {
				String pong = new ReactiveStringRedisTemplate(connection).getConnectionFactory()
					.getReactiveConnection()
					.ping()
					.block(Duration.ofSeconds(1));
				if ("PONG".equalsIgnoreCase(pong)) {
					return connection;
				}
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					connection.destroy();
					throw new IllegalStateException("redis-server did not start on port " + redis.port(), ex);
				}
			}
			connection.destroy();
			Thread.sleep(100);
		}
	}

	/** Calls per command since the server started, from {@code INFO commandstats}. */
	static Map<String, Long> commandStats(LettuceConnectionFactory connection) {
		Properties info = connection.getConnection().serverCommands().info("commandstats");
		Map<String, Long> counts = new TreeMap<>();
		if (info == null) {
			return counts;
		}
		for (String key : info.stringPropertyNames()) {
			if (key.startsWith("cmdstat_")) {
				String value = info.getProperty(key);
				int start = value.indexOf("calls=") + "calls=".length();
				int end = value.indexOf(',', start);
				counts.put(key.substring("cmdstat_".length()).toLowerCase(Locale.ROOT),
						Long.parseLong(value.substring(start, (end < 0) ? value.length() : end)));
			}
		}
		return counts;
	}

	private static void sleep(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

	static String table(Measured m) {
		StringBuilder out = new StringBuilder();
		out.append("| measurement | pods | calls/s per pod | measured s | commands sent per s per pod "
				+ "| one script per sync interval (baseline) | ratio to baseline | commands sent per call "
				+ "| commands Redis ran inside the scripts, per script | INFO commandstats delta | target |\n");
		out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
		double ratio = m.sentPerSecondPerPod() / m.syncsPerSecondPerPod();
		long scripts = Math.max(1, m.scripts());
		out.append(String.format(Locale.ROOT,
				"| fleet mode on, a steady load on a chain of 2 targets in 2 failure domains | %d | %,.0f | %.1f "
						+ "| %.2f | %.2f | %.2f | %.6f | %.1f | %s | <= 1 script per pod per sync interval%s |%n",
				m.pods(), m.callsPerSecondPerPod(), m.seconds(), m.sentPerSecondPerPod(), m.syncsPerSecondPerPod(),
				ratio, m.sentCommands() / (double) Math.max(1, m.calls()),
				(m.totalCommands() - m.sentCommands()) / (double) scripts, m.commands(),
				(ratio <= 1.1) ? " met" : " NOT met"));
		return out.toString();
	}

}
