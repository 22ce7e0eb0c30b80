package io.github.llmresilience.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.actuate.ActuatorTestApplication.EventCollector;
import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.context.event.ClassificationRulesEditedEvent;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * An operator edits the classification rules through the {@code llmresilience} endpoint
 * over real HTTP: the next call is read by the new rules, the endpoint lists the rules in
 * force and which rule read each recent answer, and every edit is a state change (a log
 * line, a count, an entry in the recent list, an application event). A rule from
 * {@code application.yml} is listed too.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class, properties = {
		ActuatorTestApplication.CHAT_CHAIN, "llm.resilience.retry.max-attempts=1",
		"llm.resilience.classification.rules[0].provider=anthropic",
		"llm.resilience.classification.rules[0].status=529", "llm.resilience.classification.rules[0].outcome=THROTTLED",
		"llm.resilience.classification.rules[0].wait=30s", "management.endpoints.web.exposure.include=llmresilience",
		"management.endpoint.llmresilience.access=unrestricted", "spring.main.web-application-type=reactive" })
@AutoConfigureWebTestClient
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class ClassificationRulesEndpointIntegrationTests {

	private static final String TEAPOT = "{\"error\":{\"message\":\"I am a teapot\",\"type\":\"teapot_error\"}}";

	private static final String OK = "{\"choices\":[{\"message\":{\"content\":\"from secondary\"},"
			+ "\"finish_reason\":\"stop\"}]}";

	private static final FakeProvider provider = new FakeProvider();

	@Autowired
	private WebTestClient client;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private RecentStateChanges recentChanges;

	@Autowired
	private EventCollector events;

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
		provider.resetCounts();
		provider.always("primary", Reply.json(418, TEAPOT));
		provider.always("secondary", Reply.ok(OK));
		ClassificationRules rules = this.resilience.classificationRules();
		// Back to the configured rule, whatever an earlier test edited.
		rules.replace(List.of(rules.rules().get(rules.rules().size() - 1)), "test");
		// A gate an earlier test's rule set is lifted.
		this.resilience.operator().release("primary/gpt-4o");
		this.events.clear();
	}

	@Test
	void anOperatorsRuleReadsTheNextCallAndShowsInTheEndpoint(CapturedOutput output) {
		// Before: a 418 the table does not know is the caller's fault by default.
		assertThat(catchThrowable(this::chat)).isInstanceOf(LlmRejectedException.class);
		double countedBefore = transitions();

		post(Map.of("action", "add", "index", "0", "status", "418", "type", "teapot_error", "outcome", "availability"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.rules[0].name")
			.isEqualTo("rules[0]")
			.jsonPath("$.rules[0].status")
			.isEqualTo("418")
			.jsonPath("$.rules[0].type")
			.isEqualTo("teapot_error")
			.jsonPath("$.rules[0].outcome")
			.isEqualTo("AVAILABILITY")
			.jsonPath("$.rules[1].provider")
			.isEqualTo("anthropic")
			.jsonPath("$.rules[1].wait")
			.isEqualTo("PT30S");

		// The very next call is read by the new rule: the provider's trouble, so the
		// chain
		// fails over.
		assertThat(chat()).contains("from secondary");

		this.client.get()
			.uri("/actuator/llmresilience")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.classification.rules.length()")
			.isEqualTo(2)
			.jsonPath("$.classification.rules[0].messageContains")
			.doesNotExist()
			.jsonPath("$.unclassified[0].type")
			.isEqualTo("teapot_error")
			.jsonPath("$.unclassified[0].decidedBy")
			.isEqualTo("rules[0]")
			.jsonPath("$.providers.openai.overloaded")
			.isEqualTo(false)
			.jsonPath("$.events[0].kind")
			.isEqualTo("classification-rules-edited")
			.jsonPath("$.events[0].subject")
			.isEqualTo("classification.rules");

		// One edit, told once everywhere.
		assertThat(transitions() - countedBefore).isOne();
		assertThat(this.recentChanges.list().get(0).kind()).isEqualTo(StateChange.Kind.CLASSIFICATION_RULES_EDITED);
		assertThat(edits()).singleElement()
			.satisfies((edit) -> assertThat(edit.getDetail())
				.isEqualTo("added rules[0]: status=418 type=teapot_error -> AVAILABILITY (2 in force, by operator)"));
		assertThat(output.getOut())
			.contains("llm-resilience classification-rules-edited classification.rules: added rules[0]: status=418");

		// Removing it restores the table's reading, again from the next call.
		post(Map.of("action", "remove", "index", "0")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.rules.length()")
			.isEqualTo(1);
		assertThat(catchThrowable(this::chat)).isInstanceOf(LlmRejectedException.class);
		assertThat(edits()).hasSize(2);
	}

	@Test
	void aReplacedRuleTakesTheIndexItNames() {
		post(Map.of("action", "replace", "index", "0", "provider", "openai", "messageContains", "TEAPOT", "outcome",
				"THROTTLED", "wait", "15s"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.rules.length()")
			.isEqualTo(1)
			.jsonPath("$.rules[0].messageContains")
			.isEqualTo("TEAPOT")
			.jsonPath("$.rules[0].wait")
			.isEqualTo("PT15S");

		Instant before = Instant.now();
		assertThat(chat()).contains("from secondary");
		Instant after = Instant.now();

		// The rule's wait gates the scope (the system clock: 15 s after the answer).
		assertThat(this.resilience.state().target("primary").scope().gatedUntil())
			.isBetween(before.plusSeconds(15).minusMillis(1), after.plusSeconds(15).plusMillis(1));
	}

	@Test
	void aBadRuleIsA400ThatSaysWhatIsAllowedAndChangesNothing() {
		List<ClassificationRule> before = this.resilience.classificationRules().rules();

		badRequest(Map.of("action", "add", "status", "418", "outcome", "RETRY"),
				"outcome must be one of AVAILABILITY, THROTTLED, QUOTA, CREDENTIAL, REQUEST, CONTENT_FILTER, "
						+ "was 'RETRY'");
		badRequest(Map.of("action", "add", "outcome", "QUOTA"),
				"rule needs at least one condition: provider, status, type or message-contains (a rule without one "
						+ "would classify every answer), was none");
		badRequest(Map.of("action", "add", "provider", "opneai", "outcome", "QUOTA"),
				"provider must be a provider id with a classifier: anthropic, azure-ai-foundry, azure-openai, bedrock, "
						+ "cerebras, cohere, dashscope, deepinfra, deepseek, fireworks, gemini, groq, litellm, mistral, "
						+ "moonshot, ollama, openai, openai-compatible, openrouter, perplexity, sambanova, tgi, "
						+ "together, vertex-ai, vllm, xai, zai, was 'opneai'");
		badRequest(Map.of("action", "remove", "index", "7"), "index must be between 0 and 0, was 7");
		badRequest(Map.of("action", "remove"), "Missing \"index\": the index of the rule to remove, from 0");
		badRequest(Map.of("action", "remove", "index", "first"),
				"\"index\" must be a rule's index, from 0, was 'first'");
		badRequest(Map.of("action", "sort"), "Unknown action 'sort'; allowed: add, replace, remove");
		this.client.post()
			.uri("/actuator/llmresilience/classification/tables")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("action", "add"))
			.exchange()
			.expectStatus()
			.isBadRequest();

		assertThat(this.resilience.classificationRules().rules()).isSameAs(before);
		assertThat(edits()).isEmpty();
	}

	@Test
	void aPastedAnswerGetsItsVerdictAndWhatDecidedIt() {
		// DeepSeek's empty balance: the generic code must not outrank the 402 and the
		// message (https://github.com/666ghj/BettaFish/issues/286).
		verdict("deepseek",
				Map.of("status", "402", "body",
						"{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,"
								+ "\"code\":\"invalid_request_error\"}}"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.outcome")
			.isEqualTo("QUOTA")
			.jsonPath("$.reason")
			.isEqualTo("message family money: \"insufficient balance\"")
			.jsonPath("$.rule")
			.isEqualTo("built-in")
			.jsonPath("$.failover")
			.isEqualTo(true);
		// A user's rule reads Anthropic's 529 as a throttle: the reason names it.
		this.resilience.classificationRules()
			.replace(List.of(ClassificationRule.parse("anthropic", "529", null, null, "THROTTLED", "30s")), "test");
		verdict("anthropic",
				Map.of("status", "529", "body",
						"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.outcome")
			.isEqualTo("THROTTLED")
			.jsonPath("$.rule")
			.isEqualTo("rules[0]")
			.jsonPath("$.reason")
			.isEqualTo("user rule rules[0]: provider=anthropic status=529 -> THROTTLED wait PT30S")
			.jsonPath("$.waitMillis")
			.isEqualTo(30000);
		// A whole raw answer pasted for a target: status line, headers, blank line, body.
		verdict("primary",
				Map.of("body",
						"HTTP/1.1 429 Too Many Requests\r\nretry-after: 20\r\ncontent-type: application/json\r\n\r\n"
								+ "{\"error\":{\"message\":\"Rate limit reached for gpt-4o on requests per min (RPM)\","
								+ "\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}"))
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.target")
			.isEqualTo("primary")
			.jsonPath("$.outcome")
			.isEqualTo("THROTTLED")
			.jsonPath("$.reason")
			.isEqualTo("vendor code rate_limit_exceeded")
			.jsonPath("$.waitMillis")
			.isEqualTo(20000);
		// Garbage gets a verdict, or one line saying why not.
		verdict("openai", Map.of("status", "400", "body", "\u0000\u00ff<<<not json")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.outcome")
			.isEqualTo("REQUEST");
		verdict("openai", Map.of("status", "teapot")).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.isEqualTo("\"status\" must be an HTTP status from 100 to 599, was 'teapot'");
		verdict("openai", Map.of("status", "429", "headers", "no colon here")).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.isEqualTo("A header line must read 'Name: value', was 'no colon here'");
		verdict("nobody", Map.of("status", "500")).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.message")
			.value((message) -> assertThat(message.toString()).startsWith("Unknown target or provider id 'nobody'"));
	}

	private WebTestClient.ResponseSpec verdict(String name, Map<String, String> params) {
		return this.client.get().uri((uri) -> {
			uri.path("/actuator/llmresilience/classification/verdict/{name}");
			params.keySet().forEach((key) -> uri.queryParam(key, "{" + key + "}"));
			Map<String, String> variables = new java.util.HashMap<>(params);
			variables.put("name", name);
			return uri.build(variables);
		}).exchange();
	}

	private String chat() {
		return ActuatorClients.chat(this.resilience);
	}

	private WebTestClient.ResponseSpec post(Map<String, ?> body) {
		return this.client.post()
			.uri("/actuator/llmresilience/classification/rules")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(body)
			.exchange();
	}

	private void badRequest(Map<String, ?> body, String message) {
		post(body).expectStatus().isBadRequest().expectBody().jsonPath("$.message").isEqualTo(message);
	}

	private double transitions() {
		Counter counter = this.meters.find("llm.resilience.state.transitions")
			.tags("kind", "classification-rules-edited", "subject", "classification.rules")
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	/** Every rule edit the application was told of, in order. */
	private List<ClassificationRulesEditedEvent> edits() {
		return this.events.all(ClassificationRulesEditedEvent.class);
	}

}
