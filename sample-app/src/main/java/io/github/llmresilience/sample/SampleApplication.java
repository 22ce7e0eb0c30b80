package io.github.llmresilience.sample;

import java.util.Arrays;
import java.util.Map;

import io.github.llmresilience.sample.drill.DrillFlags;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An answers service protected by llm-resilience, with a provider simulator in the same
 * process. With {@code --drill=...} it runs one drill against the simulator, prints the
 * report and exits.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] arguments) {
		// --overload-control=on, --hedging=off: the mechanisms' properties.
		String[] args = DrillFlags.withProperties(arguments);
		SpringApplication application = new SpringApplication(SampleApplication.class);
		boolean drill = Arrays.stream(args).anyMatch((arg) -> arg.startsWith("--drill="));
		if (drill) {
			// The course's settings (application-drill.yml) and ports of its own, so that
			// a drill can run beside a running sample app.
			application.setAdditionalProfiles("drill");
		}
		if (Arrays.asList(args).contains("--client=spring-ai-plain")) {
			// The baseline is Spring AI with its defaults: the SDK keeps its own retries.
			application.setDefaultProperties(Map.of("llm.resilience.spring-ai.sdk-retries-off", "false"));
		}
		if (Arrays.asList(args).contains("--client=langchain4j-plain")) {
			// The baseline is LangChain4j with its defaults: its models keep their
			// retries.
			application.setDefaultProperties(Map.of("llm.resilience.langchain4j.retries-off", "false"));
		}
		ConfigurableApplicationContext context = application.run(args);
		if (drill) {
			System.exit(SpringApplication.exit(context));
		}
	}

}
