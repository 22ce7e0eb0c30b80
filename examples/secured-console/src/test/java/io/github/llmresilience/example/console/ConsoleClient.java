package io.github.llmresilience.example.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import org.jspecify.annotations.Nullable;

/**
 * The console over real HTTP, as curl and scripts reach it: the JDK's client, HTTP Basic
 * or no credentials, no session kept between requests, redirects not followed.
 */
final class ConsoleClient {

	/** A bound for what only a hung machine would exceed; never a latency claim. */
	static final Duration PATIENCE = Duration.ofSeconds(30);

	static final String READER = "reader:reader-secret";

	static final String OPERATOR = "operator:operator-secret";

	private final HttpClient http = HttpClient.newBuilder()
		.connectTimeout(PATIENCE)
		.followRedirects(HttpClient.Redirect.NEVER)
		.build();

	private final String base;

	ConsoleClient(int port) {
		this.base = "http://127.0.0.1:" + port;
	}

	HttpResponse<String> get(String path, @Nullable String user) {
		return get(path, user, "application/json");
	}

	HttpResponse<String> get(String path, @Nullable String user, String accept) {
		return send(request(path, user).header("Accept", accept).GET());
	}

	HttpResponse<String> post(String path, @Nullable String user, String contentType, String body) {
		return send(request(path, user).header("Content-Type", contentType)
			.POST(HttpRequest.BodyPublishers.ofString(body)));
	}

	HttpRequest.Builder request(String path, @Nullable String user) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path)).timeout(PATIENCE);
		if (user != null) {
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
		}
		return request;
	}

	HttpResponse<String> send(HttpRequest.Builder request) {
		try {
			return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
