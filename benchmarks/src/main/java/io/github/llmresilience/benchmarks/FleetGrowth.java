package io.github.llmresilience.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.data.redis.RedisFleetStore;
import io.github.llmresilience.fleet.FleetStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * How the fleet's cost grows with the fleet: simulated pods (the sync client alone, no
 * engine) of one namespace on one Redis container, each running the sync script once a
 * sync interval over every failure domain, as a pod does, with counts in every domain.
 * For each size it reports the sync's latency (p50, p99, client side), Redis's CPU (its
 * own {@code used_cpu_user + used_cpu_sys}), commands per second and bytes per sync (both
 * directions, {@code INFO stats}).
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar growth          # 50, 200, 1,000 pods x 10, 100 domains, ~4 min
 * java -jar benchmarks/target/benchmarks.jar growth --quick  # a smoke run
 * </pre>
 *
 * The image is {@code llm-resilience.redis.image} or {@code LLM_RESILIENCE_REDIS_IMAGE}
 * ({@code redis:7} by default; {@code docker/redis/build.sh} builds one from the
 * machine's own binaries).
 */
final class FleetGrowth {

	/** The command line's name for it. */
	static final String GROUP = "growth";

	/**
	 * One size's figures.
	 *
	 * @param pods simulated pods
	 * @param domains failure domains per pod
	 * @param syncs syncs answered in the measured time
	 * @param failed syncs that failed or were skipped (the pod's last one still out)
	 * @param seconds the measured time
	 * @param p50Millis the median sync, client side
	 * @param p99Millis the 99th percentile
	 * @param cpuPercent Redis's CPU, percent of one core
	 * @param commandsPerSecond Redis's commands (a script and each command it runs)
	 * @param bytesPerSync bytes in and out per sync
	 */
	record Result(int pods, int domains, long syncs, long failed, double seconds, double p50Millis, double p99Millis,
			double cpuPercent, double commandsPerSecond, double bytesPerSync) {

		String row() {
			return String.format("| %,d | %d | %,.0f | %.1f ms | %.1f ms | %.0f%% | %.2f ms | %,.0f | %,.0f | %d |",
					this.pods, this.domains, this.syncs / this.seconds, this.p50Millis, this.p99Millis, this.cpuPercent,
					cpuMillisPerSync(), this.commandsPerSecond, this.bytesPerSync, this.failed);
		}

		/**
		 * Redis's CPU per sync: what bounds one Redis core (1,000 ms of it a second),
		 * whatever the client's machine could send.
		 */
		double cpuMillisPerSync() {
			return (this.syncs > 0) ? this.cpuPercent * 10 * this.seconds / this.syncs : Double.NaN;
		}

	}

	static final String HEADER = "| pods | domains | syncs/s | sync p50 | sync p99 | Redis CPU (one core) | Redis CPU per sync | commands/s | bytes per sync | syncs failed or skipped |\n"
			+ "|---|---|---|---|---|---|---|---|---|---|";

	private FleetGrowth() {
	}

	public static void main(String[] args) throws Exception {
		boolean quick = Arrays.asList(args).contains("--quick");
		int[] pods = quick ? new int[] { 20 } : new int[] { 50, 200, 1000 };
		int[] domains = quick ? new int[] { 10 } : new int[] { 10, 100 };
		Duration warmup = quick ? Duration.ofSeconds(2) : Duration.ofSeconds(5);
		Duration measured = quick ? Duration.ofSeconds(3) : Duration.ofSeconds(15);
		List<Result> results = new ArrayList<>();
		try (GenericContainer<?> redis = container()) {
			redis.start();
			for (int p : pods) {
				for (int d : domains) {
					Result result = run(redis.getHost(), redis.getMappedPort(6379), p, d, Duration.ofSeconds(1), warmup,
							measured);
					System.out.println(result.row());
					results.add(result);
				}
			}
		}
		System.out.println();
		System.out.println(HEADER);
		results.forEach((result) -> System.out.println(result.row()));
	}

	/** A Redis container: nothing kept on disk. Not started. */
	@SuppressWarnings("resource")
	static GenericContainer<?> container() {
		String name = System.getProperty("llm-resilience.redis.image");
		if (name == null || name.isBlank()) {
			name = System.getenv("LLM_RESILIENCE_REDIS_IMAGE");
		}
		DockerImageName image = DockerImageName.parse((name == null || name.isBlank()) ? "redis:7" : name)
			.asCompatibleSubstituteFor("redis");
		return new GenericContainer<>(image).withExposedPorts(6379)
			.withCommand("redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no")
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1)
				.withStartupTimeout(Duration.ofSeconds(60)));
	}

	/**
	 * Run {@code pods} simulated pods with {@code domains} domains each on the Redis at
	 * host and port for warmup and then the measured time.
	 */
	static Result run(String host, int port, int pods, int domains, Duration interval, Duration warmup,
			Duration measured) throws InterruptedException {
		String namespace = "growth-" + UUID.randomUUID().toString().substring(0, 8);
		// Pods share connections (a pod of its own has one; Redis's work is the same).
		int connections = Math.min(pods, 32);
		List<LettuceConnectionFactory> factories = new ArrayList<>();
		List<RedisFleetStore> stores = new ArrayList<>();
		for (int i = 0; i < connections; i++) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(host, port),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
			factory.afterPropertiesSet();
			factory.start();
			factories.add(factory);
			stores.add(new RedisFleetStore(new ReactiveStringRedisTemplate(factory), namespace));
		}
		List<FleetStore.Domain> domainList = new ArrayList<>();
		for (int d = 0; d < domains; d++) {
			domainList.add(new FleetStore.Domain("provider-" + d + "/model/region", BreakerSettings.defaults(), null,
					false, false, Duration.ofMinutes(1), -1, 0));
		}
		ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
		AtomicBoolean measuring = new AtomicBoolean();
		AtomicLong failed = new AtomicLong();
		ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(4, (runnable) -> {
			Thread thread = new Thread(runnable, "fleet-growth");
			thread.setDaemon(true);
			return thread;
		});
		List<SimulatedPod> simulated = new ArrayList<>();
		for (int i = 0; i < pods; i++) {
			SimulatedPod pod = new SimulatedPod("pod-" + i, stores.get(i % connections), domainList, latencies,
					measuring, failed);
			simulated.add(pod);
			long offset = ThreadLocalRandom.current().nextLong(interval.toNanos());
			scheduler.scheduleAtFixedRate(pod::sync, offset, interval.toNanos(), TimeUnit.NANOSECONDS);
		}
		try {
			TimeUnit.MILLISECONDS.sleep(warmup.toMillis());
			long[] before = stats(host, port);
			long start = System.nanoTime();
			measuring.set(true);
			TimeUnit.MILLISECONDS.sleep(measured.toMillis());
			measuring.set(false);
			double seconds = (System.nanoTime() - start) / 1e9;
			long[] after = stats(host, port);
			long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
			long syncs = sorted.length;
			double cpu = (after[0] - before[0]) / 1e6 / seconds * 100;
			// The INFO commands of the measurement itself (one each side) left out.
			double commands = (after[1] - before[1] - 1) / seconds;
			double bytes = (syncs > 0) ? (double) (after[2] - before[2]) / syncs : 0;
			return new Result(pods, domains, syncs, failed.get(), seconds, percentile(sorted, 0.50) / 1e6,
					percentile(sorted, 0.99) / 1e6, cpu, commands, bytes);
		}
		finally {
			scheduler.shutdownNow();
			scheduler.awaitTermination(10, TimeUnit.SECONDS);
			factories.forEach(LettuceConnectionFactory::destroy);
		}
	}

	private static double percentile(long[] sorted, double p) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		return sorted[Math.min(sorted.length - 1, (int) Math.floor(p * sorted.length))];
	}

	/**
	 * Redis's CPU (µs, user and system), commands processed and bytes in and out so far.
	 */
	static long[] stats(String host, int port) {
		RedisClient client = RedisClient.create("redis://" + host + ":" + port);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String cpu = connection.sync().info("cpu");
			String stats = connection.sync().info("stats");
			long cpuMicros = Math.round((field(cpu, "used_cpu_user") + field(cpu, "used_cpu_sys")) * 1e6);
			return new long[] { cpuMicros, (long) field(stats, "total_commands_processed"),
					(long) (field(stats, "total_net_input_bytes") + field(stats, "total_net_output_bytes")) };
		}
		finally {
			client.shutdown();
		}
	}

	private static double field(String info, String name) {
		return info.lines()
			.filter((line) -> line.startsWith(name + ":"))
			.mapToDouble((line) -> Double.parseDouble(line.substring(name.length() + 1).trim()))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("INFO has no " + name));
	}

	/**
	 * A pod's sync and nothing else: every interval one script with a batch of counts in
	 * every domain, the epoch and the last operation it knows, as a pod sends them.
	 */
	static final class SimulatedPod {

		private final String id;

		private final String incarnation = UUID.randomUUID().toString();

		private final FleetStore store;

		private final List<FleetStore.Domain> domains;

		private final ConcurrentLinkedQueue<Long> latencies;

		private final AtomicBoolean measuring;

		private final AtomicLong failed;

		private final AtomicBoolean inFlight = new AtomicBoolean();

		private volatile String epoch = "";

		private volatile long operation = -1;

		private volatile long batch = 0;

		private volatile @Nullable Long offset;

		SimulatedPod(String id, FleetStore store, List<FleetStore.Domain> domains,
				ConcurrentLinkedQueue<Long> latencies, AtomicBoolean measuring, AtomicLong failed) {
			this.id = id;
			this.store = store;
			this.domains = domains;
			this.latencies = latencies;
			this.measuring = measuring;
			this.failed = failed;
		}

		void sync() {
			if (!this.inFlight.compareAndSet(false, true)) {
				// The last sync is still out: a pod sends none behind it.
				if (this.measuring.get()) {
					this.failed.incrementAndGet();
				}
				return;
			}
			List<FleetStore.Counts> counts = new ArrayList<>();
			for (FleetStore.Domain domain : this.domains) {
				counts.add(new FleetStore.Counts(domain.domain(), 5, 0, 0));
			}
			Long known = this.offset;
			long sequence = this.batch + 1;
			FleetStore.Sync sync = new FleetStore.Sync(this.id, this.incarnation, this.epoch, this.operation,
					Duration.ofSeconds(30), Duration.ofSeconds(3), this.domains, List.of(new FleetStore.Batch(sequence,
							(known != null) ? System.currentTimeMillis() - known : 0, counts)),
					List.of());
			boolean measured = this.measuring.get();
			long start = System.nanoTime();
			try {
				this.store.sync(sync).whenComplete((view, error) -> {
					long took = System.nanoTime() - start;
					this.inFlight.set(false);
					if (error != null) {
						if (measured) {
							this.failed.incrementAndGet();
						}
						return;
					}
					this.epoch = view.epoch();
					this.operation = view.operation();
					this.batch = Math.max(this.batch, view.appliedBatch());
					this.offset = System.currentTimeMillis() - view.serverMillis();
					if (measured) {
						this.latencies.add(took);
					}
				});
			}
			catch (RuntimeException ex) {
				this.inFlight.set(false);
				if (measured) {
					this.failed.incrementAndGet();
				}
			}
		}

	}

}
