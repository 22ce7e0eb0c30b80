package io.github.llmresilience.example.console;

import java.net.http.HttpResponse;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ConsoleSecurity}'s rules over real HTTP, as curl sends them: health public, the
 * endpoint's reads and the status page for any signed-in user, its writes for operators
 * only.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class ConsoleSecurityTests {

	private static final String ENDPOINT = "/actuator/llmresilience";

	private static final String FORCE_OPEN = "{\"action\": \"force-open\"}";

	private static final String JSON = "application/json";

	private static final String STATE = "/actuator/llm-resilience/state";

	@LocalServerPort
	private int port;

	@Autowired
	private LlmResilience resilience;

	private ConsoleClient console;

	@BeforeEach
	void closedBreakers() {
		this.console = new ConsoleClient(this.port);
		this.resilience.operator().reset("primary");
		this.resilience.operator().reset("secondary");
	}

	@Test
	void healthIsPublicWithoutItsDetails() {
		HttpResponse<String> health = this.console.get("/actuator/health", null);
		assertThat(health.statusCode()).isEqualTo(200);
		assertThat(health.body()).contains("\"status\"").doesNotContain("primary");
	}

	@Test
	void healthShowsTheTargetsToASignedInUser() {
		for (String user : new String[] { ConsoleClient.READER, ConsoleClient.OPERATOR }) {
			HttpResponse<String> health = this.console.get("/actuator/health", user);
			assertThat(health.statusCode()).as(user).isEqualTo(200);
			assertThat(health.body()).as(user).contains("llmResilience", "primary", "secondary");
		}
	}

	@Test
	void theEndpointsReadNeedsASignedInUser() {
		assertThat(this.console.get(ENDPOINT, null).statusCode()).isEqualTo(401);
		assertThat(this.console.get(ENDPOINT + "/primary", null).statusCode()).isEqualTo(401);
		for (String user : new String[] { ConsoleClient.READER, ConsoleClient.OPERATOR }) {
			HttpResponse<String> read = this.console.get(ENDPOINT, user);
			assertThat(read.statusCode()).as(user).isEqualTo(200);
			assertThat(read.body()).as(user).contains("\"primary\"", "\"chat\"");
		}
	}

	@Test
	void theStatusPageSendsABrowserWithoutASessionToTheLoginForm() {
		HttpResponse<String> page = this.console.get("/actuator/llm-resilience/", null, "text/html");
		assertThat(page.statusCode()).isEqualTo(302);
		assertThat(page.headers().firstValue("Location")).hasValueSatisfying((to) -> assertThat(to).endsWith("/login"));
	}

	@Test
	void theStatusPageAndItsViewNeedASignedInUser() {
		assertThat(this.console.get(STATE, null).statusCode()).isEqualTo(401);
		for (String user : new String[] { ConsoleClient.READER, ConsoleClient.OPERATOR }) {
			HttpResponse<String> page = this.console.get("/actuator/llm-resilience/", user, "text/html");
			assertThat(page.statusCode()).as(user).isEqualTo(200);
			assertThat(page.body()).as(user).contains("<title>llm-resilience status</title>");
			HttpResponse<String> view = this.console.get(STATE, user);
			assertThat(view.statusCode()).as(user).isEqualTo(200);
			assertThat(view.body()).as(user).contains("\"serving\"");
		}
	}

	@Test
	void thePagesPollWithoutASessionIsABare401NotABasicChallenge() {
		// What the page sends: a browser meets no login dialog when its session has
		// ended.
		HttpResponse<String> poll = this.console.send(this.console.request(STATE, null)
			.header("Accept", "application/json")
			.header("X-Requested-With", "XMLHttpRequest")
			.GET());
		assertThat(poll.statusCode()).isEqualTo(401);
		assertThat(poll.headers().firstValue("WWW-Authenticate")).isEmpty();
	}

	@Test
	void anAnonymousWriteIsRefusedAs401AndChangesNothing() {
		HttpResponse<String> write = this.console.post(ENDPOINT + "/targets/primary", null, JSON, FORCE_OPEN);
		assertThat(write.statusCode()).isEqualTo(401);
		assertThat(primaryBreaker()).isEqualTo(Status.CLOSED);
	}

	@Test
	void aReadersWriteIsRefusedAs403AndChangesNothing() {
		HttpResponse<String> write = this.console.post(ENDPOINT + "/targets/primary", ConsoleClient.READER, JSON,
				FORCE_OPEN);
		assertThat(write.statusCode()).isEqualTo(403);
		assertThat(primaryBreaker()).isEqualTo(Status.CLOSED);
	}

	@Test
	void anOperatorsWriteForcesTheBreakerOpenAsTheReadThenShows() {
		HttpResponse<String> write = this.console.post(ENDPOINT + "/targets/primary", ConsoleClient.OPERATOR, JSON,
				FORCE_OPEN);
		assertThat(write.statusCode()).isEqualTo(200);
		assertThat(primaryBreaker()).isEqualTo(Status.FORCED_OPEN);
		HttpResponse<String> read = this.console.get(ENDPOINT + "/primary", ConsoleClient.READER);
		assertThat(read.statusCode()).isEqualTo(200);
		assertThat(read.body()).contains("\"state\":\"FORCED_OPEN\"");
	}

	@Test
	void anOperatorsWriteWithABodyAFormCouldSendIsRefusedAndChangesNothing() {
		// What a page on another site can post without a CORS preflight: the reason the
		// endpoint's writes can do without a CSRF token.
		for (String contentType : new String[] { "text/plain", "application/x-www-form-urlencoded",
				"multipart/form-data; boundary=x" }) {
			HttpResponse<String> write = this.console.post(ENDPOINT + "/targets/primary", ConsoleClient.OPERATOR,
					contentType, FORCE_OPEN);
			assertThat(write.statusCode()).as(contentType).isEqualTo(415);
		}
		assertThat(primaryBreaker()).isEqualTo(Status.CLOSED);
	}

	private Status primaryBreaker() {
		return this.resilience.state().target("primary").breaker().status();
	}

}
