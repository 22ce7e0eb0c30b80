package io.github.llmresilience.data.redis;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.github.llmresilience.pool.LeaseStore;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fleet's lease buckets in Redis, through Spring Data Redis on the connection Boot's
 * {@code spring.data.redis.*} made: one hash per quota scope,
 * {@code llm-resilience:{namespace}:lease:<scope>}, and one Lua script
 * ({@code lease-exchange.lua}) per exchange, on the server's clock ({@code TIME}).
 *
 * <p>
 * Why not Bucket4j's proxy manager on Redis: without optimizations it is a round trip per
 * call; its delaying and predicting optimizations let each pod spend from its own copy of
 * the shared state between syncs, so a fleet may exceed the capacity by what every pod
 * spends unsynchronized; its batching merges only concurrent requests of one pod; and its
 * time is the client's. A lease is a slice the store took out of the bucket, so pods
 * never spend what another may spend.
 *
 * <p>
 * Commands used, for a Redis ACL: {@code EVALSHA} and {@code EVAL} from the client;
 * inside the script {@code TIME}, {@code HGETALL}, {@code HSET}, {@code HDEL} and
 * {@code PEXPIRE}, on keys {@code llm-resilience:{namespace}:lease:*}.
 */
public final class RedisLeaseStore implements LeaseStore {

	private static final RedisScript<String> EXCHANGE = RedisScript
		.of(new ClassPathResource("io/github/llmresilience/data/redis/lease-exchange.lua"), String.class);

	private final ReactiveStringRedisTemplate redis;

	private final String prefix;

	/**
	 * @param redis the template on the application's connection
	 * @param namespace the fleet's namespace
	 */
	public RedisLeaseStore(ReactiveStringRedisTemplate redis, String namespace) {
		this.redis = Objects.requireNonNull(redis);
		this.prefix = "llm-resilience:{" + namespace + "}:lease:";
	}

	/** The key of a scope's bucket and leases. */
	public String key(String scope) {
		return this.prefix + scope;
	}

	@Override
	public CompletableFuture<Lease> exchange(Exchange exchange) {
		List<String> args = List.of(exchange.holder(), Long.toString(exchange.sequence()),
				Long.toString(exchange.capacity().requestsPerMinute()),
				Long.toString(exchange.capacity().tokensPerMinute()), Long.toString(exchange.periodMillis()),
				Long.toString(exchange.returnedRequests()), Long.toString(exchange.returnedTokens()),
				Long.toString(exchange.askedRequests()), Long.toString(exchange.askedTokens()),
				Long.toString(exchange.debitRequests()), Long.toString(exchange.debitTokens()),
				Long.toString(exchange.urgentRequests()));
		// Subscribed on a worker: a connection still being made never blocks the caller.
		return this.redis.execute(EXCHANGE, List.of(key(exchange.scope())), args)
			.next()
			.map(RedisLeaseStore::parse)
			.switchIfEmpty(Mono.error(() -> new IllegalStateException("The lease script returned nothing")))
			.subscribeOn(Schedulers.boundedElastic())
			.toFuture();
	}

	static Lease parse(String answer) {
		String[] f = answer.trim().split(" ");
		return new Lease(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
	}

}
