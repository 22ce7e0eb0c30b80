package io.github.llmresilience.data.redis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.fleet.FleetStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fleet's state in Redis, through Spring Data Redis on whatever connection Boot's
 * {@code spring.data.redis.*} made (Standalone, Sentinel or Cluster). A sync is one Lua
 * script ({@code fleet-sync.lua}) on the server's clock; hints travel on one pub/sub
 * channel. Every key of a namespace carries the same hash tag,
 * {@code llm-resilience:{namespace}:}, so a Cluster keeps them in one slot.
 *
 * <p>
 * Commands used, for a Redis ACL: {@code EVALSHA}, {@code EVAL} and {@code SUBSCRIBE}
 * from the client; inside the script {@code TIME}, {@code GET}, {@code SET}, {@code DEL},
 * {@code INCR}, {@code HMGET}, {@code HSET}, {@code HINCRBY}, {@code HINCRBYFLOAT},
 * {@code HGETALL}, {@code HKEYS}, {@code HDEL}, {@code EXPIRE}, {@code PEXPIRE},
 * {@code SADD}, {@code SREM}, {@code SMEMBERS}, {@code LPUSH}, {@code LTRIM},
 * {@code LRANGE}, {@code ZADD}, {@code ZSCORE}, {@code ZREMRANGEBYSCORE}, {@code ZCARD}
 * and {@code PUBLISH}, all on keys {@code llm-resilience:{namespace}:*} and the channel
 * {@code llm-resilience:{namespace}:hints} ({@code docs/fleet.md} has the ACL line, which
 * {@code FleetAclTests} runs the script under).
 */
public final class RedisFleetStore implements FleetStore {

	private static final Logger logger = LoggerFactory.getLogger(RedisFleetStore.class);

	private static final RedisScript<String> SYNC = RedisScript
		.of(new ClassPathResource("io/github/llmresilience/data/redis/fleet-sync.lua"), String.class);

	private final ReactiveStringRedisTemplate redis;

	private final String prefix;

	private volatile @Nullable Disposable hints;

	/**
	 * @param redis the template on the application's connection
	 * @param namespace the fleet's namespace
	 */
	public RedisFleetStore(ReactiveStringRedisTemplate redis, String namespace) {
		this.redis = Objects.requireNonNull(redis);
		this.prefix = "llm-resilience:{" + namespace + "}:";
	}

	/** The prefix of every key of this namespace. */
	public String prefix() {
		return this.prefix;
	}

	@Override
	public CompletableFuture<View> sync(Sync sync) {
		List<String> args = arguments(sync);
		// Subscribed on a worker: a connection that is still being made (Lettuce connects
		// inside the subscription, and a stalled server holds it there) never blocks the
		// pod's thread, which stops waiting at the command timeout.
		return this.redis.execute(SYNC, List.of(this.prefix + "ops"), args)
			.next()
			.map(RedisFleetStore::parse)
			.switchIfEmpty(Mono.error(() -> new IllegalStateException("The fleet script returned nothing")))
			.subscribeOn(Schedulers.boundedElastic())
			.toFuture();
	}

	private List<String> arguments(Sync sync) {
		List<String> args = new ArrayList<>();
		args.add(this.prefix);
		args.add(Long.toString(Math.max(1, sync.window().toSeconds())));
		args.add(Long.toString(sync.knownOperation()));
		args.add(sync.pod());
		args.add(sync.incarnation());
		args.add(sync.epoch());
		args.add(Long.toString(Math.max(1, sync.liveness().toMillis())));
		args.add(Integer.toString(sync.domains().size()));
		for (Domain domain : sync.domains()) {
			BreakerSettings settings = domain.settings();
			args.add(domain.domain());
			args.add(Integer.toString(settings.minimumCalls()));
			args.add(Float.toString(settings.failureRateThreshold()));
			args.add(Float.toString(settings.slowCallRateThreshold()));
			args.add(Long.toString(settings.openDuration().toMillis()));
			args.add(Long.toString(settings.openDurationMax().toMillis()));
			args.add(Long.toString((domain.probeInterval() != null) ? domain.probeInterval().toMillis() : 0));
			args.add(domain.wantsProbe() ? "1" : "0");
			args.add(domain.holdsProbe() ? "1" : "0");
			args.add(Long.toString(Math.max(1, domain.probeLease().toMillis())));
			args.add(Long.toString(domain.spendWindow()));
			args.add(Long.toString(domain.spendWindowMillis()));
		}
		args.add(Integer.toString(sync.batches().size()));
		for (Batch batch : sync.batches()) {
			args.add(Long.toString(batch.sequence()));
			args.add(Long.toString(Math.max(0, batch.atMillis())));
			args.add(Integer.toString(batch.counts().size()));
			for (Counts counts : batch.counts()) {
				args.add(counts.domain());
				args.add(Long.toString(Math.max(0, counts.calls())));
				args.add(Long.toString(Math.max(0, counts.failures())));
				args.add(Long.toString(Math.max(0, counts.slow())));
				args.add(Long.toString(counts.spendWindow()));
				args.add(Long.toString(Math.max(0, counts.spendCalls())));
				// Plain digits: Redis reads the increment of HINCRBYFLOAT as a decimal.
				args.add(BigDecimal.valueOf(finite(counts.spend())).toPlainString());
				args.add(BigDecimal.valueOf(finite(counts.spendExpected())).toPlainString());
			}
		}
		args.add(Integer.toString(sync.writes().size()));
		for (Write write : sync.writes()) {
			args.add(write.kind().name().toLowerCase(Locale.ROOT));
			args.add(write.subject());
			args.add(write.value());
			args.add(Long.toString(write.number()));
		}
		return args;
	}

	/** A spend that is not a finite, non-negative number counts nothing. */
	private static double finite(double spend) {
		return (spend >= 0 && !Double.isInfinite(spend)) ? spend : 0;
	}

	static View parse(String answer) {
		long now = 0;
		String epoch = "";
		long batch = 0;
		long operation = 0;
		int pods = 0;
		List<DomainView> domains = new ArrayList<>();
		List<Hold> holds = new ArrayList<>();
		List<Operation> operations = new ArrayList<>();
		Map<String, List<String>> chains = new LinkedHashMap<>();
		String rules = null;
		for (String line : answer.split("\n")) {
			String[] f = line.split("\t", -1);
			// A line that cannot be read is skipped, not thrown: the script ran, and its
			// batches are applied whatever this pod makes of the answer.
			try {
				switch (f[0]) {
					case "now" -> now = Long.parseLong(f[1]);
					case "epoch" -> epoch = f[1];
					case "batch" -> batch = Long.parseLong(f[1]);
					case "seq" -> operation = Long.parseLong(f[1]);
					case "pods" -> pods = Integer.parseInt(f[1]);
					case "d" -> domains.add(new DomainView(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
							Integer.parseInt(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]),
							f[9], "1".equals(f[10]), (f.length > 11) ? f[11] : "",
							(f.length > 15) ? Long.parseLong(f[15]) : 0, (f.length > 14) ? Long.parseLong(f[12]) : -1,
							(f.length > 14) ? Long.parseLong(f[13]) : 0,
							(f.length > 14) ? finite(Double.parseDouble(f[14])) : 0,
							(f.length > 16) ? finite(Double.parseDouble(f[16])) : Double.NaN));
					case "h" -> {
						Write.Kind kind = switch (f[1]) {
							case "g" -> Write.Kind.GATE;
							case "p" -> Write.Kind.PARK;
							default -> Write.Kind.LOCK;
						};
						holds.add(new Hold(kind, f[2], Long.parseLong(f[3]), f[4]));
					}
					case "o" -> operations.add(new Operation(Long.parseLong(f[1]),
							Write.Kind.valueOf(f[2].toUpperCase(Locale.ROOT)), f[3]));
					case "c" -> chains.put(f[1],
							Arrays.stream(f[2].split(","))
								.map(String::trim)
								.filter((name) -> !name.isEmpty())
								.toList());
					case "r" -> rules = (f.length > 1) ? f[1] : "";
					default -> logger.debug("Unknown fleet line '{}'", f[0]);
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Fleet line '{}' skipped: {}", f[0], ex.toString());
			}
		}
		return new View(now, epoch, batch, operation, domains, holds, operations, chains, rules, pods);
	}

	@Override
	public void listen(Runnable hint) {
		// Deferred: a Redis that is down now makes the subscription fail and retry, not
		// this method throw.
		this.hints = Flux.defer(() -> this.redis.listenToChannel(this.prefix + "hints"))
			// Subscribed on a worker: the listener's container connects when it is made.
			.subscribeOn(Schedulers.boundedElastic())
			.doOnNext((message) -> hint.run())
			.retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(100)).maxBackoff(Duration.ofSeconds(5)))
			.subscribe(null, (ex) -> logger.debug("Fleet hints ended", ex));
	}

	@Override
	public void close() {
		Disposable hints = this.hints;
		if (hints != null) {
			hints.dispose();
		}
	}

}
