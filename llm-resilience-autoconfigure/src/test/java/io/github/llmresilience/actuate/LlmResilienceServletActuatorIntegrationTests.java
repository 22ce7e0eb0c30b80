package io.github.llmresilience.actuate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ChainState;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chain edit in a servlet (Spring MVC on Tomcat) application, over real HTTP, with a
 * context path, a base path and a path mapping of the application's own.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		classes = { ActuatorTestApplication.class, VirtualTime.class },
		properties = { ActuatorTestApplication.CHAT_CHAIN, "spring.main.web-application-type=servlet",
				"server.servlet.context-path=/app", "management.endpoints.web.base-path=/ops",
				"management.endpoints.web.path-mapping.llmresilience=resilience",
				"management.endpoints.web.exposure.include=llmresilience",
				"management.endpoint.llmresilience.access=unrestricted",
				"llm.resilience.targets.primary.api-key=sk-test-servlet",
				"llm.resilience.targets.secondary.api-key=sk-test-servlet", "llm.resilience.retry.max-attempts=1" })
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceServletActuatorIntegrationTests {

	private static final FakeProvider provider = new FakeProvider();

	private static final String ENDPOINT = "/app/ops/resilience";

	@LocalServerPort
	private int port;

	@Autowired
	private ApplicationContext context;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private RecentStateChanges recentChanges;

	private WebTestClient client;

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
		this.client = ActuatorClients.to(this.port, ENDPOINT);
		provider.resetCounts();
		provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK.replace("Hello", "from primary")));
		provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK.replace("Hello", "from secondary")));
		ChainState chat = this.resilience.state().chain("chat");
		if (chat.edited()) {
			this.resilience.operator().replaceChain("chat", chat.configuredTargets());
		}
	}

	@Test
	void theApplicationIsAServletOne() {
		assertThat(this.context).isInstanceOf(WebApplicationContext.class);
	}

	@Test
	void aCommaSeparatedChainEditChangesWhichTargetTheNextCallUses() {
		assertThat(chat()).contains("from primary");

		post("/chains/chat", Map.of("targets", "secondary,primary")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.targets")
			.isEqualTo(List.of("secondary", "primary"))
			.jsonPath("$.configuredTargets")
			.isEqualTo(List.of("primary", "secondary"))
			.jsonPath("$.edited")
			.isEqualTo(true);

		assertThat(this.resilience.state().chain("chat").targets()).containsExactly("secondary", "primary");
		assertThat(chat()).contains("from secondary");
		assertThat(provider.requests("primary")).isOne();
		assertThat(provider.requests("secondary")).isOne();
	}

	@Test
	void aBadChainEditIsA400ThatSaysWhatIsWrongAndChangesNothing() {
		List<StateChange> changesBefore = this.recentChanges.list();

		badRequest(Map.of("targets", "secondary,nope"),
				"Chain 'chat' names unknown target 'nope'; known targets: [primary, secondary]");
		badRequest(Map.of("targets", "secondary,,primary"), "\"targets\" has an empty name: 'secondary,,primary'");
		badRequest(Map.of("targets", ""), "Chain 'chat' needs at least one target");
		badRequest(Map.of(), "Missing \"targets\": the chain's new target names in order, comma-separated, "
				+ "such as \"secondary,primary\"");

		assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
		assertThat(this.recentChanges.list()).isEqualTo(changesBefore);
	}

	@Test
	void aJsonArrayOfTargetsIsBootsOwn400AndChangesNothing() {
		List<StateChange> changesBefore = this.recentChanges.list();

		post("/chains/chat", Map.of("targets", List.of("secondary", "primary"))).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(400)
			.jsonPath("$.error")
			.isEqualTo("Bad Request")
			.jsonPath("$.path")
			.isEqualTo(ENDPOINT + "/chains/chat")
			.jsonPath("$.message")
			.doesNotExist();

		assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
		assertThat(this.recentChanges.list()).isEqualTo(changesBefore);
	}

	private String chat() {
		return ActuatorClients.chat(this.resilience);
	}

	private WebTestClient.ResponseSpec post(String path, Map<String, ?> body) {
		return this.client.post().uri(path).contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange();
	}

	private void badRequest(Map<String, ?> body, String message) {
		post("/chains/chat", body).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(400)
			.jsonPath("$.error")
			.isEqualTo("Bad Request")
			.jsonPath("$.message")
			.isEqualTo(message);
	}

}
