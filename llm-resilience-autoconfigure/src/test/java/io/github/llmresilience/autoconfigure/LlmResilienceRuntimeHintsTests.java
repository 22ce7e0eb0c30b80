package io.github.llmresilience.autoconfigure;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import io.github.llmresilience.actuate.ChainDescriptor;
import io.github.llmresilience.actuate.LlmResilienceEndpoint;
import io.github.llmresilience.actuate.StatusPageView;
import io.github.llmresilience.actuate.TargetDescriptor;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's runtime hints, as AOT processing and a native image see them: every
 * resource the starter ships (found on the classpath, not listed by hand), and the types
 * Jackson writes, with the nested ones they reach.
 */
class LlmResilienceRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	LlmResilienceRuntimeHintsTests() {
		new LlmResilienceRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void everyResourceTheStarterShipsIsHinted() throws IOException {
		Resource[] shipped = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/llmresilience/**/*.*");
		List<String> paths = Arrays.stream(shipped)
			.filter((resource) -> !resource.getFilename().endsWith(".class"))
			.map(LlmResilienceRuntimeHintsTests::classpathPath)
			.filter((path) -> path.startsWith("io/github/llmresilience/") && !path.contains("/test/"))
			.toList();
		assertThat(paths).contains("io/github/llmresilience/data/redis/fleet-sync.lua",
				"io/github/llmresilience/actuate/status-page.html",
				"io/github/llmresilience/classify/vendor/families/money.QUOTA.txt");
		assertThat(paths).allSatisfy(
				(path) -> assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(this.hints));
	}

	@Test
	void theHintedResourcesExist() {
		LlmResilienceRuntimeHints.RESOURCES.stream()
			.filter((pattern) -> !pattern.contains("*"))
			.forEach((path) -> assertThat(new ClassPathResource(path).exists()).as(path).isTrue());
	}

	@Test
	void theTypesJacksonWritesAndTheTypesTheyReachHaveTheirAccessorsHinted() {
		for (Class<?> type : new Class<?>[] { StatusPageView.class, StatusPageView.Breaker.class,
				StatusPageView.Traffic.class, TargetDescriptor.class, TargetDescriptor.BreakerDescriptor.class,
				ChainDescriptor.class, LlmResilienceEndpoint.LlmResilienceDescriptor.class,
				LlmResilienceEndpoint.ClassificationDescriptor.class, LlmResilienceEndpoint.RuleDescriptor.class,
				LlmResilienceEndpoint.VerdictDescriptor.class, LlmResilienceEndpoint.StateChangeDescriptor.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(StatusPageView.class, "chains"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(LlmResilienceEndpoint.RuleDescriptor.class, "getOutcome")).accepts(this.hints);
	}

	@Test
	void theRegistrarIsAnAotService() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.hasAtLeastOneElementOfType(LlmResilienceRuntimeHints.class);
	}

	private static String classpathPath(Resource resource) {
		try {
			String url = resource.getURL().toString();
			int at = url.indexOf("io/github/llmresilience/");
			return url.substring(at);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
