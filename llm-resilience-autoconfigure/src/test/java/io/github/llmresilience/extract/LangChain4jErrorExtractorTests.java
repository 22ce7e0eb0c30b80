package io.github.llmresilience.extract;

import java.net.http.HttpTimeoutException;
import java.util.List;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.anthropic.internal.api.AnthropicStreamingException;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LangChain4j's exceptions as its models throw them (the model exception with its HTTP
 * client's {@code HttpException} as cause), read and classified with the vendors' own
 * classifiers.
 */
class LangChain4jErrorExtractorTests {

	private final ErrorExtractors extractors = new ErrorExtractors(List.of(new LangChain4jErrorExtractor()));

	@Test
	void theStatusAndBodyOfTheHttpExceptionUnderAModelExceptionAreRead() {
		String body = "{\"error\":{\"message\":\"You exceeded your current quota.\",\"type\":\"insufficient_quota\","
				+ "\"param\":null,\"code\":\"insufficient_quota\"}}";
		ProviderResponse response = this.extractors.extract(new RateLimitException(new HttpException(429, body)));
		assertThat(response).isNotNull();
		assertThat(response.status()).isEqualTo(429);
		assertThat(response.body()).isEqualTo(body);
		assertThat(classify("openai", new RateLimitException(new HttpException(429, body)))).isEqualTo(Outcome.QUOTA);
	}

	@Test
	void anAnthropicOverloadIsAnAvailabilityFailure() {
		String body = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
		assertThat(classify("anthropic", new InternalServerException(new HttpException(529, body))))
			.isEqualTo(Outcome.AVAILABILITY);
	}

	@Test
	void anAnthropicErrorEventInsideAStreamIsReadAsThatEvent() {
		ProviderResponse response = this.extractors
			.extract(new AnthropicStreamingException("Overloaded \"now\"", "overloaded_error"));
		assertThat(response).isNotNull();
		assertThat(response.event()).isEqualTo("error");
		assertThat(response.body()).isEqualTo(
				"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded \\\"now\\\"\"}}");
		assertThat(classify("anthropic", new AnthropicStreamingException("Overloaded", "overloaded_error")))
			.isEqualTo(Outcome.AVAILABILITY);
	}

	@Test
	void langChain4jsTimeoutIsReadFromTheJdksTimeoutUnderIt() {
		ProviderResponse response = this.extractors
			.extract(new TimeoutException(new HttpTimeoutException("request timed out")));
		assertThat(response).isNotNull();
		assertThat(response.kind()).isEqualTo(ProviderResponse.timeout().kind());
	}

	@Test
	void anExceptionOfAnotherKindIsNotRead() {
		assertThat(new LangChain4jErrorExtractor().extract(new IllegalStateException("no"))).isNull();
	}

	private Outcome classify(String provider, Throwable error) {
		return BuiltInClassifiers.forProvider(provider).classify(this.extractors.extract(error)).outcome();
	}

}
