package io.github.llmresilience.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The web side of {@link LlmResilienceEndpoint}'s write operation and of its
 * pasted-answer read ({@code classification/verdict/{name}}): a bad request is answered
 * with 400 and a body that says what is wrong. (Boot would answer 400 on its own, but its
 * error body hides the reason unless {@code spring.web.error.include-message} is set, and
 * an operator at the console needs it.)
 */
@EndpointWebExtension(endpoint = LlmResilienceEndpoint.class)
public class LlmResilienceEndpointWebExtension {

	private final LlmResilienceEndpoint delegate;

	public LlmResilienceEndpointWebExtension(LlmResilienceEndpoint delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
	}

	/**
	 * See
	 * {@link LlmResilienceEndpoint#change(String, String, String, String, String, String, String, String, String, String, String)}.
	 */
	@WriteOperation
	public WebEndpointResponse<Object> change(@Selector String kind, @Selector String name, @Nullable String action,
			@Nullable String targets, @Nullable String index, @Nullable String provider, @Nullable String status,
			@Nullable String type, @Nullable String messageContains, @Nullable String outcome, @Nullable String wait) {
		try {
			return new WebEndpointResponse<>(this.delegate.change(kind, name, action, targets, index, provider, status,
					type, messageContains, outcome, wait), WebEndpointResponse.STATUS_OK);
		}
		catch (InvalidEndpointRequestException ex) {
			return badRequest(ex);
		}
	}

	/**
	 * See
	 * {@link LlmResilienceEndpoint#verdict(String, String, String, String, String, String)}.
	 */
	@ReadOperation
	public WebEndpointResponse<Object> verdict(@Selector String section, @Selector String operation,
			@Selector String name, @Nullable String status, @Nullable String headers, @Nullable String body) {
		try {
			return new WebEndpointResponse<>(this.delegate.verdict(section, operation, name, status, headers, body),
					WebEndpointResponse.STATUS_OK);
		}
		catch (InvalidEndpointRequestException ex) {
			return badRequest(ex);
		}
	}

	private static WebEndpointResponse<Object> badRequest(InvalidEndpointRequestException ex) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", WebEndpointResponse.STATUS_BAD_REQUEST);
		body.put("error", "Bad Request");
		body.put("message", ex.getReason());
		return new WebEndpointResponse<>(OperationResponseBody.of(body), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

}
