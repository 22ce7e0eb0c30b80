package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.spend.SpendSettings;
import io.github.llmresilience.spend.SpendState;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spend windows hold fleet-wide: two pods, each answering too few calls a window to be
 * judged alone ({@code min-calls} 14, ten calls a pod), share their windows through
 * Redis; when answers run four times longer, both open the primary's breaker on spend. An
 * operator's close on one pod accepts the new level on both. The same pods deciding alone
 * never judge a window and never open.
 *
 * <p>
 * On the real clock, with margins a busy machine meets. The fleet crosses
 * {@code open-multiple} at the fourteenth of its twenty answers of the first window of
 * longer answers, and the other pod must see the crossing, at its next sync or call,
 * before that window ends: once a pod's breaker is open its calls go to the secondary,
 * and the window after holds the other pod's ten answers alone, never {@code min-calls}.
 * Three-second windows leave it 0.9 s, eighteen sync intervals. A pod alone must never
 * reach {@code min-calls}: a call whose turn a busy machine let pass is skipped, never
 * made in a burst that would crowd a window.
 */
class FleetSpendTests {

	/** Three seconds: see the class's comment. */
	private static final Duration WINDOW = Duration.ofSeconds(3);

	/** Calls a window on each pod. */
	private static final int CALLS_PER_POD = 10;

	private static final Duration PACE = WINDOW.dividedBy(CALLS_PER_POD);

	/**
	 * Four more than a pod answers a window: a pod alone stays short even when slow
	 * answers of one window land in the next, and the two pods together have six to
	 * spare.
	 */
	private static final int MIN_CALLS = CALLS_PER_POD + 4;

	private static final String DOMAIN = "openai/gpt-4o/region-primary";

	/** A median of 3, judged after 2 windows of {@link #MIN_CALLS} answers. */
	private static final SpendSettings SPEND = new SpendSettings(true, WINDOW, 3, 2, MIN_CALLS, 3.0, 2.0);

	/** How often each pod syncs with the fleet. */
	private static final Duration SYNC = Duration.ofMillis(50);

	private final RestClient client = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()).build();

	private volatile int length = 1;

	@Test
	void twoPodsJudgeTheirSharedWindowsWhereNeitherCouldAlone() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.script("primary", (n) -> Reply.ok(answer(this.length)));
			fleet.provider.always("secondary", Reply.ok(answer(1)));
			FleetSettings settings = new FleetSettings(fleet.namespace, SYNC, Duration.ofSeconds(3), null,
					Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = List.of(
					fleet.start("pod-1", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.spend(SPEND)),
					fleet.start("pod-2", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.spend(SPEND)));
			assertThat(run(fleet, pods, true)).isEmpty();
			assertThat(pods).as("%s", fleet.events).allSatisfy((pod) -> {
				BreakerState breaker = pod.resilience().state().target("primary").breaker();
				assertThat(breaker.status()).isEqualTo(BreakerState.Status.OPEN);
				assertThat(breaker.reason()).isEqualTo("spend");
			});
			assertThat(fleet.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_TRIPPED).hasSize(2);
			// An operator closes the breaker on pod 1, accepting the new level: pod 2
			// follows, and forgets its history too.
			pods.get(0).resilience().operator().close("primary");
			await().atMost(SYNC.multipliedBy(100)).untilAsserted(() -> {
				assertThat(pods.get(1).resilience().state().target("primary").breaker().status())
					.isEqualTo(BreakerState.Status.CLOSED);
				// Forgotten: learning again, from the window of the close on.
				assertThat(pods.get(1).resilience().spend().get(DOMAIN).windows()).isLessThan(SPEND.minWindows());
				assertThat(pods.get(1).resilience().spend().get(DOMAIN).level()).isEqualTo("normal");
			});

			fleet.stopAll();
			fleet.events.clear();
			this.length = 1;
			List<FleetPods.Pod> alone = List.of(
					fleet.startAlone("alone-1", Clock.systemUTC(), BreakerSettings.defaults(),
							(builder) -> builder.spend(SPEND)),
					fleet.startAlone("alone-2", Clock.systemUTC(), BreakerSettings.defaults(),
							(builder) -> builder.spend(SPEND)));
			assertThat(run(fleet, alone, false)).isEmpty();
			// Ten answers a window each: alone, no pod ever had a window to remember.
			assertThat(alone).allSatisfy((pod) -> assertThat(pod.resilience().spend().get(DOMAIN).windows()).isZero());
			assertThat(fleet.events).noneMatch((change) -> change.kind() == StateChange.Kind.SPEND_ALERT
					|| change.kind() == StateChange.Kind.BREAKER_OPENED);
		}
	}

	/**
	 * Four ordinary windows, then, from a window's edge, answers four times longer until
	 * every pod's breaker opened or two windows passed.
	 * @param untilJudged whether to go on with ordinary answers until every pod judges
	 * (at most four windows more), as a busy machine may leave a window short
	 * @return what went wrong in calls
	 */
	private Queue<Throwable> run(FleetPods fleet, List<FleetPods.Pod> pods, boolean untilJudged) {
		Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
		AtomicInteger served = new AtomicInteger();
		ScheduledExecutorService executor = Executors.newScheduledThreadPool(pods.size());
		try {
			for (int i = 0; i < pods.size(); i++) {
				FleetPods.Pod pod = pods.get(i);
				long offset = i * PACE.toNanos() / pods.size();
				AtomicLong first = new AtomicLong();
				AtomicLong turns = new AtomicLong();
				executor.scheduleAtFixedRate(() -> {
					long turn = turns.getAndIncrement();
					long now = System.nanoTime();
					if (turn == 0) {
						first.set(now);
					}
					if (now - (first.get() + turn * PACE.toNanos()) > PACE.toNanos() / 2) {
						// Its turn passed while the machine was busy: skipped, not made
						// in a burst with the next.
						return;
					}
					try {
						call(pod);
						served.incrementAndGet();
					}
					catch (Throwable ex) {
						unexpected.add(ex);
					}
				}, offset, PACE.toNanos(), TimeUnit.NANOSECONDS);
			}
			// Ordinary answers for four windows, and on until every pod has judged
			// windows enough (a busy machine may leave a window short), or eight
			// windows passed.
			wait(WINDOW.multipliedBy(4));
			long learnt = System.nanoTime() + WINDOW.multipliedBy(4).toNanos();
			while (untilJudged && System.nanoTime() < learnt && !pods.stream().allMatch(this::judges)) {
				wait(PACE);
			}
			// From the next window's edge (the pods' windows start on the epoch): the
			// first window of longer answers is whole, and crosses open-multiple at its
			// MIN_CALLS-th answer. A change within a window may cross it with the
			// window's last answer, too late for the other pod to see.
			long now = System.currentTimeMillis();
			wait(Duration.ofMillis(WINDOW.toMillis() - Math.floorMod(now, WINDOW.toMillis())));
			this.length = 4;
			long giveUp = System.nanoTime() + WINDOW.multipliedBy(2).toNanos();
			while (System.nanoTime() < giveUp && !pods.stream()
				.allMatch((pod) -> pod.resilience().state().target("primary").breaker().reason() != null)) {
				wait(PACE);
			}
		}
		finally {
			// Periodic calls stop; one under way ends (interrupting it would be a failure
			// of the test's own making).
			executor.shutdown();
			try {
				executor.awaitTermination(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		assertThat(served.get()).isPositive();
		return unexpected;
	}

	/**
	 * Whether a pod has windows enough to judge its spend (alone, never at this pace).
	 */
	private boolean judges(FleetPods.Pod pod) {
		SpendState spend = pod.resilience().spend().get(DOMAIN);
		return spend != null && spend.windows() >= SPEND.minWindows();
	}

	/** The traffic runs meanwhile: what is measured is what it does. */
	private static void wait(Duration duration) {
		try {
			new CountDownLatch(1).await(duration.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private String call(FleetPods.Pod pod) {
		return pod.resilience().call("chat", (attempt) -> {
			ResponseEntity<String> answer = this.client.post()
				.uri(attempt.target().baseUrl() + "/v1/chat/completions")
				.body("{}")
				.retrieve()
				.toEntity(String.class);
			attempt.answered(answer.getHeaders().asMultiValueMap(), answer.getBody());
			return answer.getBody();
		});
	}

	/** An OpenAI chat completion: 100 tokens in, 1,000 times the length out. */
	private static String answer(int length) {
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
				+ "\"assistant\",\"content\":\"" + "An answer. ".repeat(length)
				+ "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":"
				+ (1000 * length) + ",\"total_tokens\":" + (100 + 1000 * length) + "}}";
	}

}
