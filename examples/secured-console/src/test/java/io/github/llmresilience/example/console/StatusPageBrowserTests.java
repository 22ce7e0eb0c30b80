package io.github.llmresilience.example.console;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The status page behind {@link ConsoleSecurity} in a real headless Chromium, as
 * sample-app's StatusPageAndDashboardTests drives it: a reader signs in on the login
 * form, the page polls its view with the session, and shows a change an operator makes
 * over HTTP Basic without being reloaded.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class StatusPageBrowserTests {

	private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	/** How long the page may take to show a change the engine already reports. */
	private static final Duration PAGE_LAG = Duration.ofSeconds(3);

	@LocalServerPort
	private int port;

	@Autowired
	private LlmResilience resilience;

	private WebDriver browser;

	@BeforeEach
	void openBrowser(@TempDir Path profile) {
		assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
				"No Chromium at " + CHROMIUM + " with its driver at " + CHROMEDRIVER
						+ " (Debian: apt-get install chromium chromium-driver): the browser test cannot run");
		this.resilience.operator().reset("primary");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
			.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
					"--disable-background-networking", "--disable-component-update", "--disable-sync",
					"--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1280,900");
		this.browser = new ChromeDriver(service, options);
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void aSignedInReaderSeesTheStateThePagePollsChangeWhenAnOperatorForcesABreakerOpen() {
		String page = "http://127.0.0.1:" + this.port + "/actuator/llm-resilience/";
		this.browser.get(page);
		// Not signed in: the login form, not the page.
		assertThat(this.browser.getCurrentUrl()).endsWith("/login");
		this.browser.findElement(By.id("username")).sendKeys("reader");
		this.browser.findElement(By.id("password")).sendKeys("reader-secret");
		this.browser.findElement(By.cssSelector("button[type=submit]")).click();
		// Back on the page it asked for, which draws what its first poll read.
		// (Spring Security marks the saved request's redirect with "?continue".)
		page(ConsoleClient.PATIENCE).until((driver) -> driver.getCurrentUrl().startsWith(page)
				&& "CLOSED".equals(breakerState(driver, "primary")) && "primary".equals(serving(driver, "chat")));

		// An operator forces primary's breaker open over HTTP Basic, as curl would.
		int status = new ConsoleClient(this.port)
			.post("/actuator/llmresilience/targets/primary", ConsoleClient.OPERATOR, "application/json",
					"{\"action\": \"force-open\"}")
			.statusCode();
		assertThat(status).isEqualTo(200);
		// The page, not reloaded, shows it from its next polls.
		page(PAGE_LAG).until((driver) -> "FORCED_OPEN".equals(breakerState(driver, "primary"))
				&& "secondary".equals(serving(driver, "chat")));
		assertThat(text(this.browser, "#error")).isEmpty();
		assertThat(this.browser.getCurrentUrl()).startsWith(page);

		// The session ends (expired, or signed out in another tab): the page says so at
		// its next poll, without a login dialog over it (which would hold the poll).
		this.browser.manage().deleteAllCookies();
		page(PAGE_LAG).until((driver) -> text(driver, "#error").contains("signed out"));
		assertThat(this.browser.getCurrentUrl()).startsWith(page);
	}

	private WebDriverWait page(Duration timeout) {
		WebDriverWait wait = new WebDriverWait(this.browser, timeout, Duration.ofMillis(100));
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
		return elements.isEmpty() ? "" : elements.get(0).getText();
	}

}
