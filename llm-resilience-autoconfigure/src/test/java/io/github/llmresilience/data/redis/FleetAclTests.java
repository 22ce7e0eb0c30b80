package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.fleet.FleetStore.Batch;
import io.github.llmresilience.fleet.FleetStore.Counts;
import io.github.llmresilience.fleet.FleetStore.Domain;
import io.github.llmresilience.fleet.FleetStore.Sync;
import io.github.llmresilience.fleet.FleetStore.View;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The ACL line of {@code docs/fleet.md}, exactly as written, on a {@code redis-server} of
 * the test's own: every path of the sync script runs under it, and a script the ACL
 * refuses half-way never applies its counts twice when the pod sends them again.
 */
class FleetAclTests {

	static final String DOMAIN = "openai/gpt-4o/us";

	static final BreakerSettings BREAKER = new BreakerSettings(20, 4, 50, Duration.ofSeconds(10), 50,
			Duration.ofSeconds(30), Duration.ofMinutes(15), 1);

	/** The line as the docs give it, for the namespace {@code orders}. */
	static List<String> documentedLine() throws IOException {
		String docs = Files.readString(Path.of("..", "docs", "fleet.md"));
		Matcher line = Pattern.compile("^ACL SETUSER orders .*$", Pattern.MULTILINE).matcher(docs);
		assertThat(line.find()).as("an ACL SETUSER line in docs/fleet.md").isTrue();
		return Arrays.asList(line.group().trim().split("\\s+"));
	}

	@Test
	void theDocumentedLineAllowsEveryCommandOfTheScript() throws IOException {
		String script = Files
			.readString(Path.of("src/main/resources/io/github/llmresilience/data/redis/fleet-sync.lua"));
		Set<String> used = new TreeSet<>();
		Matcher call = Pattern.compile("redis\\.call\\('([A-Za-z]+)'").matcher(script);
		while (call.find()) {
			used.add("+" + call.group(1).toLowerCase(Locale.ROOT));
		}
		assertThat(used).hasSizeGreaterThan(20);
		assertThat(documentedLine()).containsAll(used).contains("+evalsha", "+eval", "+subscribe");
	}

	@Test
	void everyPathOfTheScriptRunsUnderTheDocumentedLine() throws Exception {
		try (RedisProcess redis = RedisProcess.launch()) {
			acl(redis, documentedLine());
			LettuceConnectionFactory connection = connect(redis);
			try {
				RedisFleetStore store = new RedisFleetStore(new ReactiveStringRedisTemplate(connection), "orders");
				AtomicInteger hints = new AtomicInteger();
				store.listen(hints::incrementAndGet);
				// Counts that open the domain, with spend.
				View view = send(store, "a", true,
						List.of(new Batch(1, 0, List.of(new Counts(DOMAIN, 4, 4, 0, 100, 2, 0.5)))), List.of());
				assertThat(view.domains().get(0).status()).isEqualTo("open");
				assertThat(view.domains().get(0).spendCalls()).isEqualTo(2);
				long now = view.serverMillis();
				// Holds, lifts, a chain, rules, an operator's status, a republished
				// opening, a hint, a trial, a lease given back.
				view = send(store, "a", false, List.of(),
						List.of(new Write(Write.Kind.GATE, "acct/gpt-4o", "rate limited", now + 60_000),
								new Write(Write.Kind.PARK, "acct", "quota", now + 60_000),
								new Write(Write.Kind.LOCK, "acct", "key revoked", now + 60_000),
								new Write(Write.Kind.CHAIN, "chat", "b,a", 0),
								new Write(Write.Kind.RULES, "rules", "x", 0),
								new Write(Write.Kind.OPEN, DOMAIN, "republished", now + 60_000),
								new Write(Write.Kind.OPENED, DOMAIN, "pod a's breaker opened", 0)));
				assertThat(view.holds()).hasSize(3);
				assertThat(view.chains()).containsKey("chat");
				assertThat(view.rules()).isEqualTo("x");
				view = send(store, "a", false, List.of(), List.of(new Write(Write.Kind.RELEASE, "acct/gpt-4o", "", 0),
						new Write(Write.Kind.UNPARK, "acct", "", 0), new Write(Write.Kind.UNLOCK, "acct", "", 0)));
				assertThat(view.holds()).isEmpty();
				// A pod that knew the log before the lifts reads them.
				View lifts = store
					.sync(new Sync("b", "one", view.epoch(), 0, Duration.ofSeconds(30), Duration.ofSeconds(5),
							List.of(domain(false)), List.of(), List.of()))
					.get(5, TimeUnit.SECONDS);
				assertThat(lifts.operations()).hasSize(3);
				// The lease, its holder's trial and the closed domain's passed trial.
				send(store, "a", false, List.of(), List.of(new Write(Write.Kind.BREAKER, DOMAIN, "closed", 0)));
				send(store, "a", false, List.of(new Batch(2, now, List.of(new Counts(DOMAIN, 4, 4, 0)))), List.of());
				View granted = await().atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> send(store, "a", true, List.of(), List.of()),
							(v) -> v.domains().get(0).probeGranted());
				send(store, "a", false, List.of(),
						List.of(new Write(Write.Kind.TRIAL, DOMAIN, "ok", granted.domains().get(0).generation()),
								new Write(Write.Kind.TRIAL, DOMAIN, "ok", 0),
								new Write(Write.Kind.UNPROBE, DOMAIN, "", 0),
								new Write(Write.Kind.BREAKER, DOMAIN, "forced-open", 0)));
				assertThat(send(store, "b", false, List.of(), List.of()).pods()).isEqualTo(2);
				// Hints reach a subscriber (the subscription is made in the background).
				AtomicInteger edits = new AtomicInteger();
				await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
					send(store, "b", false, List.of(),
							List.of(new Write(Write.Kind.CHAIN, "chat", "a,b" + edits.incrementAndGet(), 0)));
					return hints.get() > 0;
				});
				store.close();
			}
			finally {
				connection.destroy();
			}
		}
	}

	@Test
	void aScriptTheAclRefusesHalfWayNeverAppliesItsCountsTwice() throws IOException {
		try (RedisProcess redis = RedisProcess.launch()) {
			// Without ZADD, the script fails at its end, after counting.
			List<String> line = new ArrayList<>(documentedLine());
			line.remove("+zadd");
			acl(redis, line);
			LettuceConnectionFactory connection = connect(redis);
			try {
				RedisFleetStore store = new RedisFleetStore(new ReactiveStringRedisTemplate(connection), "orders");
				List<Batch> batch = List.of(new Batch(1, 0, List.of(new Counts(DOMAIN, 3, 3, 0))));
				for (int i = 0; i < 3; i++) {
					assertThatThrownBy(() -> send(store, "a", false, batch, List.of()))
						.hasStackTraceContaining("can't run this command");
				}
			}
			finally {
				connection.destroy();
			}
			long[] counted = new long[1];
			redis.admin(
					(admin) -> admin.sync().hgetall("llm-resilience:{orders}:c:" + DOMAIN).forEach((field, value) -> {
						if (field.endsWith(":c")) {
							counted[0] += Long.parseLong(value);
						}
					}));
			assertThat(counted[0]).isEqualTo(3);
		}
	}

	private static View send(RedisFleetStore store, String pod, boolean wants, List<Batch> batches,
			List<Write> writes) {
		try {
			return store
				.sync(new Sync(pod, "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5),
						List.of(domain(wants)), batches, writes))
				.get(5, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new CompletionException(ex);
		}
	}

	private static Domain domain(boolean wants) {
		return new Domain(DOMAIN, BREAKER, Duration.ofMillis(200), wants, false, Duration.ofSeconds(10), 100, 60_000);
	}

	private static void acl(RedisProcess redis, List<String> line) {
		assertThat(line.subList(0, 2)).containsExactly("ACL", "SETUSER");
		CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
		line.subList(1, line.size()).forEach(args::add);
		redis.admin((
				admin) -> assertThat(admin.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args))
					.isEqualTo("OK"));
	}

	private static LettuceConnectionFactory connect(RedisProcess redis) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", redis.port);
		configuration.setUsername("orders");
		configuration.setPassword(RedisPassword.of("secret"));
		LettuceConnectionFactory connection = new LettuceConnectionFactory(configuration);
		connection.afterPropertiesSet();
		connection.start();
		return connection;
	}

}
