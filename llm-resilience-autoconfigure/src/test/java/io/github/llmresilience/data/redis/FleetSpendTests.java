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
 * judged alone ({@code min-calls} 6, four calls a pod), share their windows through
 * Redis; when answers run four times longer, both open the primary's breaker on spend. An
 * operator's close on one pod accepts the new level on both. The same pods deciding alone
 * never judge a window and never open.
 */
class FleetSpendTests {

	private static final Duration WINDOW = Duration.ofSeconds(1);

	private static final String DOMAIN = "openai/gpt-4o/region-primary";

	/** One-second windows, a median of 3, judged after 2 windows of 6 answers. */
	private static final SpendSettings SPEND = new SpendSettings(true, WINDOW, 3, 2, 6, 3.0, 2.0);

	/** Four calls a window on each pod. */
	private static final Duration PACE = Duration.ofMillis(250);

	private final RestClient client = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory()).build();

	private volatile int length = 1;

	@Test
	void twoPodsJudgeTheirSharedWindowsWhereNeitherCouldAlone() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.script("primary", (n) -> Reply.ok(answer(this.length)));
			fleet.provider.always("secondary", Reply.ok(answer(1)));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(50), Duration.ofSeconds(3),
					null, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = List.of(
					fleet.start("pod-1", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.spend(SPEND)),
					fleet.start("pod-2", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.spend(SPEND)));
			assertThat(run(fleet, pods)).isEmpty();
			assertThat(pods).as("%s", fleet.events).allSatisfy((pod) -> {
				BreakerState breaker = pod.resilience().state().target("primary").breaker();
				assertThat(breaker.status()).isEqualTo(BreakerState.Status.OPEN);
				assertThat(breaker.reason()).isEqualTo("spend");
			});
			assertThat(fleet.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_TRIPPED).hasSize(2);
			// An operator closes the breaker on pod 1, accepting the new level: pod 2
			// follows, and forgets its history too.
			pods.get(0).resilience().operator().close("primary");
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
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
			assertThat(run(fleet, alone)).isEmpty();
			// Four answers a window each: alone, no pod ever had a window to remember.
			assertThat(alone).allSatisfy((pod) -> assertThat(pod.resilience().spend().get(DOMAIN).windows()).isZero());
			assertThat(fleet.events).noneMatch((change) -> change.kind() == StateChange.Kind.SPEND_ALERT
					|| change.kind() == StateChange.Kind.BREAKER_OPENED);
		}
	}

	/**
	 * Four ordinary windows, then answers four times longer until both pods' breakers
	 * opened or three more windows passed.
	 * @return what went wrong in calls
	 */
	private Queue<Throwable> run(FleetPods fleet, List<FleetPods.Pod> pods) {
		Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
		AtomicInteger served = new AtomicInteger();
		ScheduledExecutorService executor = Executors.newScheduledThreadPool(pods.size());
		try {
			for (int i = 0; i < pods.size(); i++) {
				FleetPods.Pod pod = pods.get(i);
				executor.scheduleAtFixedRate(() -> {
					try {
						call(pod);
						served.incrementAndGet();
					}
					catch (Throwable ex) {
						unexpected.add(ex);
					}
				}, i * PACE.toMillis() / pods.size(), PACE.toMillis(), TimeUnit.MILLISECONDS);
			}
			// Ordinary answers for four windows, and on until every pod has judged
			// windows
			// enough (a busy machine may leave a window short), or ten windows passed.
			wait(WINDOW.multipliedBy(4));
			long learnt = System.nanoTime() + WINDOW.multipliedBy(6).toNanos();
			while (System.nanoTime() < learnt && !pods.stream().allMatch(this::judges)) {
				wait(PACE);
			}
			this.length = 4;
			long giveUp = System.nanoTime() + WINDOW.multipliedBy(3).toNanos();
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
