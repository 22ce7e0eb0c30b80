package io.github.llmresilience.readme;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's first example, run as a user would: a real server, the defaults. */
class ReadmeExamplesTests {

	@Test
	void theReactiveExampleAnswersThroughAChain() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			LlmResilience resilience = LlmResilience.builder()
				.target(target("primary", provider))
				.target(target("secondary", provider))
				.chain("chat", "primary", "secondary")
				.extractors(io.github.llmresilience.extract.ErrorExtractors.standard()
					.with(List.of(new io.github.llmresilience.web.WebClientErrorExtractor())))
				.build();

			String answer = new ReadmeExamples.Answers(resilience).answer("Hi").block(Duration.ofSeconds(30));
			assertThat(answer).isEqualTo(FakeProvider.OPENAI_OK);
			assertThat(provider.requests("secondary")).isEqualTo(1);
			assertThat(provider.lastHeader("secondary", "Authorization")).containsExactly("Bearer sk-test-secondary");
		}
	}

	private static Target target(String name, FakeProvider provider) {
		return new Target(name, "openai", name, "gpt-4o", "us", URI.create(provider.baseUrl(name)),
				Secret.of("sk-test-" + name));
	}

}
