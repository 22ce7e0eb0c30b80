package io.github.llmresilience.sample;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What an operator sees, on the sample app as it ships (its {@code application.yml}): the
 * status page in a real headless Chromium while the simulator's primary goes down and
 * comes back, and the Grafana dashboard's queries against the app's own
 * {@code /actuator/prometheus}. One application serves both tests.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.simulator.latency-scale=0.05", "llm.resilience.retry.backoff-base=10ms",
				// Open long enough for the page's check, short enough for the recovery.
				"llm.resilience.breaker.open-duration=5s" })
class StatusPageAndDashboardTests {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	private static final Path DASHBOARD = Path.of("..", "dashboards", "llm-resilience.json");

	/** How long the page may take to show a change the engine already reports. */
	private static final Duration PAGE_LAG = Duration.ofSeconds(3);

	/** A bound for what only a hung machine would exceed; never a latency claim. */
	private static final Duration PATIENCE = Duration.ofSeconds(60);

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private LlmResilience resilience;

	private final SimulatorAdmin simulator = new SimulatorAdmin(SIMULATOR_PORT);

	private WebTestClient http;

	@BeforeEach
	void cleanSlate() {
		// A connection per request: Reactor Netty 1.3.6's server can leave a keep-alive
		// request unanswered (reactor/reactor-netty#4347).
		this.http = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + this.port)
			.defaultHeader(HttpHeaders.CONNECTION, "close")
			.responseTimeout(PATIENCE)
			.build();
		this.simulator.reset();
		ResilienceState.reset(this.resilience);
	}

	@Test
	void theStatusPageShowsThePrimarysBreakerOpenAndTheSecondaryServingThenClosedAgain(@TempDir Path profile)
			throws IOException {
		assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
				"No Chromium at " + CHROMIUM + " with its driver at " + CHROMEDRIVER
						+ " (Debian: apt-get install chromium chromium-driver): the browser test cannot run");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
			.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
					"--disable-background-networking", "--disable-component-update", "--disable-sync",
					"--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1280,900");
		WebDriver browser = new ChromeDriver(service, options);
		try {
			browser.get("http://127.0.0.1:" + this.port + "/actuator/llm-resilience/");
			// The first paint waits for a cold browser and a cold endpoint.
			page(browser, PATIENCE).until((driver) -> "CLOSED".equals(breakerState(driver, "primary"))
					&& "primary".equals(serving(driver, "chat")));

			this.simulator.mode("primary", "{\"mode\": \"outage\", \"seconds\": 600}");
			await().atMost(PATIENCE).pollDelay(Duration.ZERO).until(() -> {
				answer();
				return primaryBreaker() == Status.OPEN;
			});
			page(browser, PAGE_LAG).until((driver) -> "OPEN".equals(breakerState(driver, "primary"))
					&& "secondary".equals(serving(driver, "chat")));
			screenshot(browser, "status-page-outage.png");
			assertThat(browser.findElement(By.cssSelector("[data-chain=chat] [data-link=primary]")).getText())
				.contains("breaker open");

			this.simulator.mode("primary", "{\"mode\": \"normal\"}");
			// Once the open time has passed, an answer is primary's trial, which closes
			// it.
			await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
				answer();
				return primaryBreaker() == Status.CLOSED;
			});
			page(browser, PAGE_LAG).until((driver) -> "CLOSED".equals(breakerState(driver, "primary"))
					&& "primary".equals(serving(driver, "chat")));
			assertThat(browser.findElement(By.cssSelector("#events")).getText()).contains("breaker-opened",
					"breaker-closed");
			screenshot(browser, "status-page-recovered.png");
		}
		finally {
			browser.quit();
		}
	}

	@Test
	void everyMetricTheDashboardQueriesIsOneTheSampleAppExports() throws IOException {
		// An exception no extractor knows: an unclassified answer.
		assertThatThrownBy(() -> this.resilience.call("chat", (attempt) -> {
			throw new IllegalStateException("not a provider's answer");
		})).isInstanceOf(IllegalStateException.class);
		// Primary answers, with the processing time OpenAI reports.
		assertThat(answer()).isEqualTo(200);
		// Primary goes down: retries, fallbacks, its breaker opens.
		this.simulator.mode("primary", "{\"mode\": \"outage\", \"seconds\": 600}");
		await().atMost(PATIENCE).pollDelay(Duration.ZERO).until(() -> {
			answer();
			return primaryBreaker() == Status.OPEN;
		});
		// Then secondary: a call no target can serve.
		this.simulator.mode("secondary", "{\"mode\": \"outage\", \"seconds\": 600}");
		await().atMost(PATIENCE).pollDelay(Duration.ZERO).until(() -> answer() == 503);
		// A call with a fallback: a degraded answer. A target whose breaker is not open
		// yet is tried, and refuses the connection as a provider that is down would.
		String degraded = this.resilience.call("chat", CallOptions.NONE, (attempt) -> {
			throw new ConnectException("Connection refused: " + attempt.target().name());
		}, (degradation) -> "cached");
		assertThat(degraded).isEqualTo("cached");

		String scrape = this.http.get()
			.uri("/actuator/prometheus")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		Set<String> exported = new TreeSet<>();
		scrape.lines()
			.filter((line) -> !line.isBlank() && !line.startsWith("#"))
			.forEach((line) -> exported.add(line.split("[{ ]", 2)[0]));

		List<String> queries = queries(JsonMapper.builder().build().readTree(Files.readString(DASHBOARD)));
		assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
		Set<String> referenced = new TreeSet<>();
		for (String query : queries) {
			Set<String> names = metricNames(query);
			assertThat(names).as("metrics in %s", query).isNotEmpty();
			referenced.addAll(names);
		}
		assertThat(referenced).contains("llm_resilience_breaker_state", "llm_resilience_breaker_failure_rate",
				"llm_resilience_breaker_slow_call_rate", "llm_resilience_breaker_failure_rate_threshold",
				"llm_resilience_breaker_slow_call_rate_threshold", "llm_resilience_gated_scopes",
				"llm_resilience_parked_accounts", "llm_resilience_retries_total", "llm_resilience_calls_seconds_bucket",
				"http_server_requests_seconds_bucket", "llm_resilience_classification_unclassified_total",
				"llm_resilience_provider_processing_seconds_sum", "llm_resilience_calls_backoff_share_ratio_bucket",
				"llm_resilience_degraded_total");
		assertThat(exported).containsAll(referenced);
	}

	private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

	private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
			"bool", "and", "or", "unless", "offset", "le");

	/**
	 * The metric names a PromQL query selects: identifiers that are neither a function
	 * (followed by a parenthesis), nor a keyword or grouping label list, once label
	 * matchers, ranges and strings are gone.
	 */
	static Set<String> metricNames(String query) {
		String bare = query.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "")
			.replaceAll("\\{[^}]*}", "")
			.replaceAll("\\[[^]]*]", "")
			.replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "");
		Set<String> names = new TreeSet<>();
		Matcher matcher = IDENTIFIER.matcher(bare);
		while (matcher.find()) {
			String name = matcher.group();
			String rest = bare.substring(matcher.end()).stripLeading();
			if (!rest.startsWith("(") && !KEYWORDS.contains(name)) {
				names.add(name);
			}
		}
		return names;
	}

	private static List<String> queries(JsonNode dashboard) {
		List<String> queries = new ArrayList<>();
		for (JsonNode panel : dashboard.get("panels")) {
			JsonNode targets = panel.get("targets");
			if (targets != null) {
				targets.forEach((target) -> queries.add(target.get("expr").asString()));
			}
		}
		return queries;
	}

	/** One answer through the sample's API; its HTTP status. */
	private int answer() {
		return this.http.post()
			.uri("/v1/answers")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"question\": \"What does a circuit breaker do?\"}")
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	private Status primaryBreaker() {
		return this.resilience.state().target("primary").breaker().status();
	}

	private static WebDriverWait page(WebDriver browser, Duration timeout) {
		WebDriverWait wait = new WebDriverWait(browser, timeout, Duration.ofMillis(100));
		// The page redraws every second: an element read a moment ago may be gone.
		wait.ignoring(StaleElementReferenceException.class);
		return wait;
	}

	private static String breakerState(WebDriver browser, String target) {
		return text(browser, "[data-target=" + target + "] [data-breaker-state]");
	}

	private static String serving(WebDriver browser, String chain) {
		return text(browser, "[data-chain=" + chain + "] [data-serving]");
	}

	private static String text(WebDriver browser, String css) {
		var elements = browser.findElements(By.cssSelector(css));
		return elements.isEmpty() ? null : elements.get(0).getText();
	}

	private static void screenshot(WebDriver browser, String name) throws IOException {
		Path target = Path.of("target", name);
		Files.write(target, ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
	}

}
