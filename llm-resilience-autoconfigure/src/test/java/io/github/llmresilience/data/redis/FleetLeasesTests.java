package io.github.llmresilience.data.redis;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import io.github.llmresilience.pool.BucketSource;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.LeaseSettings;
import io.github.llmresilience.pool.LeaseStore;
import io.github.llmresilience.pool.LeasedSupplies;
import io.github.llmresilience.pool.LeasedSupply;
import io.github.llmresilience.pool.SupplySource;
import io.github.llmresilience.test.LocalRedis;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pods leasing one scope's capacity from real Redis, on the system clock (Redis's
 * {@code TIME} and {@link System#nanoTime()}; bounds tolerant of a slow machine): pods
 * that join, leave, die holding a lease and lose Redis mid-lease. Every draw of every pod
 * is replayed through the provider's own kind of limit (a Bucket4j bucket of the scope's
 * capacity refilling over a minute, as the sample's simulator keeps it): the fleet never
 * takes more than it allows. Every exchange is recorded on its way to Redis: no pod draws
 * on a lease after its period, timed from its ask, nor more than it was granted.
 */
class FleetLeasesTests {

	private static final String SCOPE = "acct-primary/gpt-4o";

	/** 1200 requests a minute: 20 a second. */
	private static final Capacity CAPACITY = new Capacity(1200, 0);

	private static final LeaseSettings LEASES = new LeaseSettings(true, Duration.ofSeconds(1), Duration.ofMillis(200));

	private static final long PERIOD = LEASES.period().toNanos();

	@Test
	void podsThatJoinLeaveAndDieShareTheScopeWithoutExceedingIt() {
		URI uri = LocalRedis.ciRedis();
		try (FleetPods fleet = FleetPods.onCiRedis();
				Fleet pods = new Fleet(fleet.namespace, uri.getHost(), LocalRedis.port(uri))) {
			long start = System.nanoTime();
			Pod first = pods.start("pod-1", true);
			Pod second = pods.start("pod-2", true);
			Pod idle1 = pods.start("pod-3", false);
			Pod idle2 = pods.start("pod-4", false);
			FleetLoad.runFor(Duration.ofMillis(1500));
			Pod joined = pods.start("pod-5", true);
			FleetLoad.runFor(Duration.ofMillis(1500));
			second.leave();
			FleetLoad.runFor(Duration.ofMillis(1500));
			first.die();
			FleetLoad.runFor(Duration.ofMillis(2000));
			pods.stop();
			long end = System.nanoTime();

			assertThat(pods.refusedByTheProvider()).as("draws the provider's bucket refuses").isZero();
			assertThat(pods.leaseViolations()).as("draws after a lease's period or beyond its grant").isEmpty();
			// What the provider allowed over the run: a full minute's bucket at the start
			// and its refill; the dead pod's last lease (at most two periods of refill,
			// 40)
			// is lost for its period.
			long allowed = CAPACITY.requestsPerMinute()
					+ CAPACITY.requestsPerMinute() * (end - start) / 60_000_000_000L;
			long used = pods.draws();
			System.out.printf("Leases: the fleet drew %d of %d the provider allowed (%.1f %%)%n", used, allowed,
					100.0 * used / allowed);
			assertThat(used).isGreaterThanOrEqualTo(allowed * 85 / 100);
			assertThat(joined.draws.size()).as("the pod that joined").isPositive();
			assertThat(second.draws.size()).isPositive();
			// Idle pods drew nothing and hold nothing: their first lease went back.
			assertThat(idle1.draws).isEmpty();
			assertThat(idle2.draws).isEmpty();
			assertThat(idle1.supply.requests()).isZero();
			assertThat(idle2.supply.requests()).isZero();
		}
	}

	@Test
	void aPodThatLosesRedisKeepsItsLeaseUntilItEndsThenDrawsOnItsEqualPart() {
		try (RedisProcess redis = RedisProcess.launch();
				Fleet pods = new Fleet("leases-lost", "127.0.0.1", redis.port)) {
			List<Pod> all = new ArrayList<>();
			for (int i = 1; i <= 4; i++) {
				all.add(pods.start("pod-" + i, true));
			}
			FleetLoad.runFor(Duration.ofSeconds(2));
			long lost = System.nanoTime();
			redis.stop();
			// Within a period, and a timeout and a tick more, every pod draws on its
			// part.
			await().atMost(Duration.ofSeconds(5))
				.until(() -> all.stream().allMatch((pod) -> pod.supply.mode() == LeasedSupply.Mode.PART));
			FleetLoad.runFor(Duration.ofSeconds(2));
			long healed = System.nanoTime();
			redis.resume();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> all.stream().allMatch((pod) -> pod.supply.mode() == LeasedSupply.Mode.LEASED));
			FleetLoad.runFor(Duration.ofSeconds(1));
			pods.stop();

			for (Pod pod : all) {
				// After the last lease's end (at most a period after Redis went), nothing
				// on leases until Redis is back...
				assertThat(pod.between(pod.leaseDraws, lost + PERIOD, healed)).as(pod.id + " on a lease after its end")
					.isZero();
				// ...and on the part no more than it refills: 1200 / 4 = 300 a minute, 5
				// a
				// second, starting empty (it follows leases).
				long partAllows = 1 + 300 * (healed - lost) / 60_000_000_000L;
				assertThat(pod.between(pod.partDraws, lost, healed)).as(pod.id + " on its part")
					.isPositive()
					.isLessThanOrEqualTo(partAllows);
			}
			assertThat(pods.refusedByTheProvider()).as("draws the provider's bucket refuses").isZero();
			assertThat(pods.leaseViolations()).isEmpty();
		}
	}

	/** A pod's leased supply of the scope, its background, and a driver of its demand. */
	static final class Pod {

		final String id;

		final LeasedSupplies supplies;

		final LeasedSupply supply;

		final Scheduler scheduler;

		final LettuceConnectionFactory connection;

		/** Every draw, on leases and on the part. */
		final ConcurrentLinkedQueue<Long> draws = new ConcurrentLinkedQueue<>();

		/** Draws while the supply drew on leases. */
		final ConcurrentLinkedQueue<Long> leaseDraws = new ConcurrentLinkedQueue<>();

		/** Draws while it drew on its equal part (before or after the take). */
		final ConcurrentLinkedQueue<Long> partDraws = new ConcurrentLinkedQueue<>();

		volatile boolean busy;

		volatile boolean alive = true;

		Pod(String id, LeasedSupplies supplies, Scheduler scheduler, LettuceConnectionFactory connection,
				boolean busy) {
			this.id = id;
			this.supplies = supplies;
			this.scheduler = scheduler;
			this.connection = connection;
			this.busy = busy;
			supplies.start(scheduler);
			this.supply = (LeasedSupply) supplies.supply(SCOPE, CAPACITY, 4);
		}

		/** Take what the supply gives, up to 8 a beat: a demand far above the scope's. */
		void drive() {
			if (!this.alive || !this.busy) {
				return;
			}
			for (int i = 0; i < 8; i++) {
				// The time before the take: a draw on a lease is before its end.
				long at = System.nanoTime();
				boolean part = this.supply.mode() == LeasedSupply.Mode.PART;
				if (!this.supply.tryTake(1, 0)) {
					return;
				}
				part |= this.supply.mode() == LeasedSupply.Mode.PART;
				this.draws.add(at);
				(part ? this.partDraws : this.leaseDraws).add(at);
			}
		}

		/** Leave: give back what the lease holds. */
		void leave() {
			this.busy = false;
			this.alive = false;
			this.supplies.release().orTimeout(5, TimeUnit.SECONDS).join();
		}

		/** Die holding a lease: nothing goes back, nothing more is drawn. */
		void die() {
			this.alive = false;
			this.supplies.close();
			this.scheduler.dispose();
		}

		long between(Collection<Long> draws, long from, long to) {
			return draws.stream().filter((at) -> at >= from && at < to).count();
		}

	}

	/** Pods on one Redis, a driver for all, and a record of every exchange. */
	static final class Fleet implements AutoCloseable {

		final String namespace;

		final String host;

		final int port;

		final Map<String, Pod> pods = new ConcurrentHashMap<>();

		/** Every exchange sent, by holder: when it was sent, what it asked, the grant. */
		final Map<String, ConcurrentLinkedQueue<Sent>> sent = new ConcurrentHashMap<>();

		final ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor();

		Fleet(String namespace, String host, int port) {
			this.namespace = namespace;
			this.host = host;
			this.port = port;
			this.driver.scheduleAtFixedRate(() -> this.pods.values().forEach(Pod::drive), 2, 2, TimeUnit.MILLISECONDS);
		}

		Pod start(String id, boolean busy) {
			LettuceConnectionFactory connection = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(this.host, this.port));
			connection.afterPropertiesSet();
			connection.start();
			// Connected before the pod starts: a first exchange waits for no handshake.
			ReactiveStringRedisTemplate template = new ReactiveStringRedisTemplate(connection);
			template.hasKey("warm").block(Duration.ofSeconds(10));
			RedisLeaseStore redis = new RedisLeaseStore(template, this.namespace);
			ConcurrentLinkedQueue<Sent> record = new ConcurrentLinkedQueue<>();
			LeaseStore recorded = (exchange) -> {
				Sent sent = new Sent(exchange, System.nanoTime());
				record.add(sent);
				return redis.exchange(exchange).whenComplete((lease, ex) -> {
					if (lease != null) {
						sent.granted.complete(lease.requests());
					}
					else {
						sent.granted.complete(-1L);
					}
				});
			};
			LeasedSupplies supplies = new LeasedSupplies(recorded, LEASES, id, System::nanoTime,
					SupplySource.of(BucketSource.local(System::nanoTime)));
			Pod pod = new Pod(id, supplies, Schedulers.newSingle("leases-" + id), connection, busy);
			this.sent.put(id, record);
			this.pods.put(id, pod);
			return pod;
		}

		void stop() {
			this.driver.shutdownNow();
			this.pods.values().forEach((pod) -> {
				pod.alive = false;
				pod.supplies.close();
			});
		}

		long draws() {
			return this.pods.values().stream().mapToLong((pod) -> pod.draws.size()).sum();
		}

		/**
		 * Every draw of the fleet, in time order, through a bucket of the scope's
		 * capacity refilling over a minute, full at the start: the draws it refuses.
		 */
		long refusedByTheProvider() {
			List<Long> all = new ArrayList<>();
			this.pods.values().forEach((pod) -> all.addAll(pod.draws));
			all.sort(Long::compare);
			long[] now = { 0 };
			Bucket provider = Bucket.builder().withCustomTimePrecision(new TimeMeter() {

				@Override
				public long currentTimeNanos() {
					return now[0];
				}

				@Override
				public boolean isWallClockBased() {
					return false;
				}

			})
				.addLimit(Bandwidth.builder()
					.capacity(CAPACITY.requestsPerMinute())
					.refillGreedy(CAPACITY.requestsPerMinute(), Duration.ofMinutes(1))
					.build())
				.build();
			long refused = 0;
			for (long at : all) {
				now[0] = at;
				if (!provider.tryConsume(1)) {
					refused++;
				}
			}
			return refused;
		}

		/**
		 * Draws on leases that no lease covers: after the end of the pod's latest lease
		 * (its ask plus the period), or more in one lease's time than it granted (one
		 * more is the draw under way when the next exchange was sent).
		 */
		List<String> leaseViolations() {
			List<String> violations = new ArrayList<>();
			this.pods.forEach((id, pod) -> {
				List<Sent> sent = new ArrayList<>(this.sent.get(id));
				List<Long> draws = new ArrayList<>(pod.leaseDraws);
				for (int i = 0; i < sent.size(); i++) {
					Sent one = sent.get(i);
					long from = one.at;
					long to = Math.min(one.at + PERIOD, (i + 1 < sent.size()) ? sent.get(i + 1).at : Long.MAX_VALUE);
					long granted = one.granted.getNow(-1L);
					long drawn = draws.stream().filter((at) -> at >= from && at < to).count();
					if (drawn > Math.max(0, granted) + 1) {
						violations.add(id + " drew " + drawn + " on exchange " + one.exchange.sequence() + " granted "
								+ granted);
					}
				}
				for (long at : draws) {
					boolean covered = sent.stream()
						.anyMatch((one) -> one.at <= at && at < one.at + PERIOD && one.granted.getNow(-1L) > 0);
					if (!covered) {
						violations.add(id + " drew at " + at + " with no lease covering it");
					}
				}
			});
			return violations;
		}

		@Override
		public void close() {
			stop();
			Collection<Pod> all = this.pods.values();
			all.forEach((pod) -> {
				pod.scheduler.dispose();
				pod.connection.destroy();
			});
		}

	}

	/** One exchange on its way. */
	record Sent(LeaseStore.Exchange exchange, long at, CompletableFuture<Long> granted) {

		Sent(LeaseStore.Exchange exchange, long at) {
			this(exchange, at, new CompletableFuture<>());
		}

	}

}
