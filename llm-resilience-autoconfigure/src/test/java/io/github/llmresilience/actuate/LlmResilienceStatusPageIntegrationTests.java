package io.github.llmresilience.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ChainState;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page in a running application: the page and its JSON view over real HTTP, an
 * outage through real HTTP to a fake provider, virtual time for the breaker's open time
 * and the traffic's seconds.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		classes = { ActuatorTestApplication.class, VirtualTime.class },
		properties = { ActuatorTestApplication.CHAT_CHAIN, "llm.resilience.targets.primary.account=acct-a",
				"llm.resilience.targets.primary.api-key=" + LlmResilienceStatusPageIntegrationTests.KEY,
				"llm.resilience.targets.secondary.account=acct-b",
				"llm.resilience.targets.secondary.api-key=" + LlmResilienceStatusPageIntegrationTests.KEY,
				"llm.resilience.retry.max-attempts=1", "llm.resilience.breaker.minimum-calls=2",
				"llm.resilience.breaker.sliding-window-size=4", "llm.resilience.breaker.open-duration=30s",
				"llm.resilience.timeouts.attempt=20s", "llm.resilience.status-page.enabled=true",
				"management.endpoints.web.exposure.include=llmresilience,llmresiliencepage",
				"spring.main.web-application-type=reactive" })
@AutoConfigureWebTestClient
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceStatusPageIntegrationTests {

	static final String KEY = "sk-test-PAGELEAK-51c0d3";

	private static final String OK = "{\"choices\":[{\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}";

	private static final FakeProvider provider = new FakeProvider();

	@Autowired
	private WebTestClient client;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private ManualTime time;

	@DynamicPropertySource
	static void providerUrls(DynamicPropertyRegistry registry) {
		ActuatorClients.fakeProviderUrls(registry, provider);
	}

	@AfterAll
	static void stopProvider() {
		provider.close();
	}

	@BeforeEach
	void cleanState() {
		provider.always("primary", Reply.ok(OK));
		provider.always("secondary", Reply.ok(OK));
		// Every hold and every traffic second an earlier test left behind has passed.
		this.time.advance(Duration.ofHours(1));
		ChainState chat = this.resilience.state().chain("chat");
		if (chat.edited()) {
			this.resilience.operator().replaceChain("chat", chat.configuredTargets());
		}
		this.resilience.state().targets().keySet().forEach(this.resilience.operator()::reset);
	}

	@Test
	void thePageIsOneSelfContainedHtmlDocumentAtTheEndpointsPathWithOrWithoutTheSlash() {
		for (String path : List.of("/actuator/llm-resilience/", "/actuator/llm-resilience")) {
			String page = this.client.get()
				.uri(path)
				.accept(MediaType.TEXT_HTML)
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.TEXT_HTML)
				.expectBody(String.class)
				.returnResult()
				.getResponseBody();
			assertThat(page).contains("<title>llm-resilience status</title>", "id=\"chains\"", "/state");
			// Nothing is loaded from anywhere else: no script, style sheet or image by
			// URL.
			assertThat(page).doesNotContain(" src=", " href=", "@import", "url(");
		}
	}

	@Test
	void whenThePrimaryFailsTheViewShowsItsBreakerOpenTheSecondaryServingAndTheTraffic() {
		provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
		chat();
		chat();
		// The breaker is open: this call passes primary over without a request.
		chat();

		this.client.get()
			.uri("/actuator/llm-resilience/state")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.chains[0].name")
			.isEqualTo("chat")
			.jsonPath("$.chains[0].serving")
			.isEqualTo("secondary")
			.jsonPath("$.chains[0].links[0].target")
			.isEqualTo("primary")
			.jsonPath("$.chains[0].links[0].role")
			.isEqualTo("skipped")
			.jsonPath("$.chains[0].links[0].why")
			.isEqualTo("breaker open")
			.jsonPath("$.chains[0].links[0].millisLeft")
			.isEqualTo(30_000)
			.jsonPath("$.chains[0].links[1].role")
			.isEqualTo("serving")
			.jsonPath("$.targets[0].name")
			.isEqualTo("primary")
			.jsonPath("$.targets[0].breaker.state")
			.isEqualTo("OPEN")
			.jsonPath("$.targets[0].breaker.failureRate")
			.isEqualTo(100.0)
			.jsonPath("$.targets[0].breaker.failureRateThreshold")
			.isEqualTo(50.0)
			.jsonPath("$.targets[0].breaker.windowCalls")
			.isEqualTo(2)
			.jsonPath("$.targets[0].breaker.minimumCalls")
			.isEqualTo(2)
			.jsonPath("$.targets[0].breaker.windowSize")
			.isEqualTo(4)
			.jsonPath("$.targets[0].attemptTimeout.configuredMillis")
			.isEqualTo(20_000)
			.jsonPath("$.targets[0].account.state")
			.isEqualTo("ok")
			.jsonPath("$.targets[0].traffic.requests.length()")
			.isEqualTo(300)
			.jsonPath("$.targets[0].traffic.requests[299]")
			.isEqualTo(2)
			.jsonPath("$.targets[0].traffic.failures[299]")
			.isEqualTo(2)
			.jsonPath("$.targets[0].traffic.failFasts[299]")
			.isEqualTo(1)
			.jsonPath("$.targets[1].traffic.requests[299]")
			.isEqualTo(3)
			.jsonPath("$.targets[1].traffic.failures[299]")
			.isEqualTo(0)
			.jsonPath("$.events[0].kind")
			.isEqualTo("breaker-opened")
			.jsonPath("$.fleet")
			.doesNotExist();

		// Past its open time the breaker lets a trial through: primary serves the next
		// call, and the traffic has moved on by as many seconds.
		this.time.advance(Duration.ofSeconds(31));
		this.client.get()
			.uri("/actuator/llm-resilience/state")
			.exchange()
			.expectBody()
			.jsonPath("$.chains[0].serving")
			.isEqualTo("primary")
			.jsonPath("$.chains[0].links[0].millisLeft")
			.doesNotExist()
			.jsonPath("$.targets[0].traffic.requests[268]")
			.isEqualTo(2);
	}

	@Test
	void neitherThePageNorItsViewShowsAKeyOrABaseUrl() {
		provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
		chat();
		chat();
		chat();
		String view = body("/actuator/llm-resilience/state");
		String page = body("/actuator/llm-resilience/");
		for (String text : List.of(view, page)) {
			assertThat(text).doesNotContain(KEY, "PAGELEAK", provider.baseUrl("primary"), provider.baseUrl("secondary"),
					"127.0.0.1");
		}
		assertThat(view).contains("\"breaker-opened\"");
	}

	@Test
	void thePageIsReadOnlyAndKnowsNoOtherView() {
		this.client.post()
			.uri("/actuator/llm-resilience/state")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{}")
			.exchange()
			.expectStatus()
			.value((status) -> assertThat(status).isIn(404, 405));
		this.client.get().uri("/actuator/llm-resilience/secrets").exchange().expectStatus().isNotFound();
	}

	private void chat() {
		ActuatorClients.chat(this.resilience);
	}

	private String body(String path) {
		byte[] body = this.client.get().uri(path).exchange().expectBody().returnResult().getResponseBody();
		assertThat(body).isNotEmpty();
		return new String(body, StandardCharsets.UTF_8);
	}

}
