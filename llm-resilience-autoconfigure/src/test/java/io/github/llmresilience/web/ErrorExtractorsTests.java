package io.github.llmresilience.web;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeoutException;

import com.openai.core.http.Headers;
import com.openai.errors.RateLimitException;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.extract.OpenAiSdkErrorExtractor;
import io.github.llmresilience.extract.SpringAiErrorExtractor;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorExtractorsTests {

	private final ErrorExtractors extractors = ErrorExtractors.standard()
		.with(List.of(new WebClientErrorExtractor(), new RestClientErrorExtractor(), new OpenAiSdkErrorExtractor(),
				new SpringAiErrorExtractor()));

	@Test
	void webClientResponseExceptionKeepsStatusHeadersAndBody() {
		HttpHeaders headers = new HttpHeaders();
		headers.add("Retry-After", "5");
		WebClientResponseException error = WebClientResponseException.create(429, "Too Many Requests", headers,
				"{\"error\":{\"code\":\"rate_limit_exceeded\"}}".getBytes(StandardCharsets.UTF_8),
				StandardCharsets.UTF_8);
		ProviderResponse response = this.extractors.extract(error);
		assertThat(response.status()).isEqualTo(429);
		assertThat(response.header("retry-after")).isEqualTo("5");
		assertThat(response.body()).contains("rate_limit_exceeded");
	}

	@Test
	void aFailureWhileReadingATwoHundredBodyIsReadFromItsCause() {
		// WebClient wraps a connection dropped under a 200 stream in a 200 response
		// exception.
		WebClientResponseException wrapped = new WebClientResponseException("Error while reading the body", 200, "OK",
				new HttpHeaders(), null, StandardCharsets.UTF_8);
		wrapped.initCause(new EOFException("connection closed"));
		ProviderResponse response = this.extractors.extract(wrapped);
		assertThat(response.kind()).isEqualTo(ProviderResponse.Kind.CONNECTION_FAILURE);
	}

	@Test
	void restClientResponseExceptionKeepsStatusAndBody() {
		HttpClientErrorException error = HttpClientErrorException.create(HttpStatus.UNAUTHORIZED, "Unauthorized",
				new HttpHeaders(), "{\"error\":{\"code\":\"invalid_api_key\"}}".getBytes(StandardCharsets.UTF_8),
				StandardCharsets.UTF_8);
		assertThat(classify("openai", error)).isEqualTo(Outcome.CREDENTIAL);
	}

	@Test
	void transportFailuresAreReadFromTheCauseChain() {
		assertThat(
				this.extractors.extract(new ResourceAccessException("I/O", new SocketTimeoutException("read"))).kind())
			.isEqualTo(ProviderResponse.Kind.TIMEOUT);
		assertThat(this.extractors.extract(new RuntimeException(new ConnectException("refused"))).kind())
			.isEqualTo(ProviderResponse.Kind.CONNECTION_FAILURE);
		assertThat(this.extractors.extract(new TimeoutException()).kind()).isEqualTo(ProviderResponse.Kind.TIMEOUT);
		assertThat(this.extractors.extract(new IOException("Connection reset by peer")).kind())
			.isEqualTo(ProviderResponse.Kind.CONNECTION_FAILURE);
		assertThat(this.extractors.extract(new IllegalStateException("bug"))).isNull();
	}

	@Test
	void openAiSdkExceptionKeepsStatusHeadersAndBody() {
		RateLimitException error = RateLimitException.builder()
			.headers(Headers.builder().put("retry-after", "3").build())
			.error(com.openai.models.ErrorObject.builder()
				.code("insufficient_quota")
				.message("You exceeded your current quota")
				.param((String) null)
				.type("insufficient_quota")
				.build())
			.build();
		ProviderResponse response = this.extractors.extract(error);
		assertThat(response.status()).isEqualTo(429);
		assertThat(response.header("Retry-After")).isEqualTo("3");
		assertThat(BuiltInClassifiers.forProvider("openai").classify(response).outcome()).isEqualTo(Outcome.QUOTA);
	}

	@Test
	void springAiExceptionMessageCarriesStatusAndBody() {
		RuntimeException error = new org.springframework.ai.retry.TransientAiException(
				"429 - {\"error\":{\"code\":\"insufficient_quota\",\"type\":\"insufficient_quota\"}}");
		assertThat(classify("openai", error)).isEqualTo(Outcome.QUOTA);
	}

	@Test
	void cyclicCausesEndTheWalk() {
		RuntimeException a = new RuntimeException("a");
		RuntimeException b = new RuntimeException("b", a);
		a.initCause(b);
		assertThat(this.extractors.extract(a)).isNull();
	}

	private Outcome classify(String provider, Throwable error) {
		return BuiltInClassifiers.forProvider(provider).classify(this.extractors.extract(error)).outcome();
	}

}
