package io.github.llmresilience.example.console;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An application whose llm-resilience operator console (the {@code llmresilience}
 * endpoint and the status page) is behind Spring Security, as {@link ConsoleSecurity}
 * sets it up; docs/operations.md shows that class.
 */
@SpringBootApplication
public class SecuredConsoleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SecuredConsoleApplication.class, args);
	}

}
