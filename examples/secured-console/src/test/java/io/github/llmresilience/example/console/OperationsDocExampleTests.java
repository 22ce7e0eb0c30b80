package io.github.llmresilience.example.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/operations.md shows {@link ConsoleSecurity} as it is compiled and tested here: the
 * Java block after the docs' marker is the source file, character for character but for
 * its indentation (a tab in the source, four spaces in the docs, as the docs' other
 * examples).
 */
class OperationsDocExampleTests {

	private static final Path DOCS = Path.of("..", "..", "docs", "operations.md");

	private static final Path SOURCE = Path.of("src", "main", "java", "io", "github", "llmresilience", "example",
			"console", "ConsoleSecurity.java");

	private static final String MARKER = "<!-- compiled: examples/secured-console/"
			+ SOURCE.toString().replace('\\', '/') + " -->";

	@Test
	void theDocsShowTheConsoleSecurityAsCompiled() throws IOException {
		String docs = Files.readString(DOCS);
		int marker = docs.indexOf(MARKER);
		assertThat(marker).as("%s in %s", MARKER, DOCS).isNotNegative();
		int start = docs.indexOf("```java\n", marker) + "```java\n".length();
		int end = docs.indexOf("```\n", start);
		assertThat(docs.substring(start, end)).isEqualTo(Files.readString(SOURCE).replace("\t", "    "));
	}

}
