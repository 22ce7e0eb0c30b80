package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Anthropic messages. Error bodies are Anthropic's {@code {"type": "error", "error":
 * {"type", "message"}, "request_id"}} with its documented error types.
 */
final class AnthropicSimulation implements VendorSimulation {

	private final JsonMapper json;

	private final AtomicLong ids = new AtomicLong();

	AnthropicSimulation(JsonMapper json) {
		this.json = json;
	}

	@Override
	public Prompt read(String body) {
		JsonNode request;
		try {
			request = this.json.readTree(body);
		}
		catch (JacksonException ex) {
			throw new RejectedRequest(error(400, "invalid_request_error", "Invalid JSON in request body", null));
		}
		JsonNode messages = request.path("messages");
		if (!messages.isArray() || messages.isEmpty()) {
			throw new RejectedRequest(error(400, "invalid_request_error", "messages: Field required", null));
		}
		if (!request.path("max_tokens").isNumber()) {
			throw new RejectedRequest(error(400, "invalid_request_error", "max_tokens: Field required", null));
		}
		StringBuilder question = new StringBuilder();
		for (JsonNode message : messages) {
			JsonNode content = message.path("content");
			if (content.isArray()) {
				content.forEach((block) -> question.append(block.path("text").asString()));
			}
			else {
				question.append(content.asString());
			}
		}
		return new Prompt(request.path("model").asString("claude-sonnet"), question.toString(),
				request.path("stream").asBoolean(false));
	}

	@Override
	public Reply answer(Prompt prompt, String text, Instant now) {
		return Reply.json(200, message(prompt, text, "end_turn"));
	}

	@Override
	public Reply refusal(Prompt prompt, Instant now) {
		// Claude declines inside a 200 with stop_reason refusal (fixture
		// anthropic-200-refusal).
		return Reply.json(200, message(prompt, null, "refusal"));
	}

	@Override
	public Reply outage() {
		// Anthropic documents no body of its own for a 503; this is its error shape with
		// the type it uses for failures on its side.
		return error(503, "api_error", "Service unavailable", null);
	}

	@Override
	public Reply overloaded() {
		return error(529, "overloaded_error", "Overloaded", null);
	}

	@Override
	public Reply serverError() {
		return error(500, "api_error", "Internal server error", null);
	}

	@Override
	public Reply rateLimited(Prompt prompt, int retryAfterSeconds, Instant now) {
		Reply body = error(429, "rate_limit_error", "This request would exceed the rate limit for your organization "
				+ "(org-simulated) of 50 requests per minute. For details, refer to: "
				+ "https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage. "
				+ "Please reduce the prompt length or the maximum tokens requested, or try again later. You may also "
				+ "contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit "
				+ "increase.", null);
		Instant reset = now.plusSeconds(retryAfterSeconds);
		if (reset.getNano() > 0) {
			// The header has whole seconds; round up so that it never asks for less than
			// retry-after.
			reset = reset.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
		}
		return new Reply(429,
				Map.of("retry-after", Integer.toString(retryAfterSeconds), "anthropic-ratelimit-requests-limit", "50",
						"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset",
						reset.toString()),
				body.body());
	}

	@Override
	public Map<String, String> requestLimitHeaders(long limit, long remaining, Duration reset, Instant now) {
		// Anthropic's reset is an RFC 3339 instant, in whole seconds rounded up.
		Instant at = now.plus(reset.isNegative() ? Duration.ZERO : reset);
		if (at.getNano() > 0) {
			at = at.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
		}
		return Map.of("anthropic-ratelimit-requests-limit", Long.toString(limit),
				"anthropic-ratelimit-requests-remaining", Long.toString(Math.max(0, remaining)),
				"anthropic-ratelimit-requests-reset", at.toString());
	}

	@Override
	public Reply quotaExhausted(Instant now) {
		LocalDate nextMonth = LocalDate.ofInstant(now, ZoneOffset.UTC).withDayOfMonth(1).plusMonths(1);
		return error(429, "rate_limit_error", "You have reached your API usage limits: your organization has crossed "
				+ "its monthly API usage threshold, set based on your organization's API tier. You will regain access on "
				+ nextMonth + " at 00:00 UTC.", "enforced_spend_limit_reached");
	}

	@Override
	public Reply contextTooLong(Prompt prompt) {
		return error(400, "invalid_request_error",
				"prompt is too long: " + prompt.tokens() + " tokens > " + Prompt.CONTEXT_TOKENS + " maximum", null);
	}

	@Override
	public List<SseFrame> stream(Prompt prompt, List<String> tokens, boolean refusal, Instant now) {
		List<SseFrame> frames = new ArrayList<>();
		ObjectNode start = this.json.createObjectNode().put("type", "message_start");
		ObjectNode message = start.putObject("message");
		message.put("id", "msg_sim" + this.ids.incrementAndGet())
			.put("type", "message")
			.put("role", "assistant")
			.put("model", prompt.model());
		message.putArray("content");
		message.putNull("stop_reason");
		message.putNull("stop_sequence");
		message.putObject("usage").put("input_tokens", prompt.tokens()).put("output_tokens", 1);
		frames.add(frame("message_start", start, false));
		ObjectNode blockStart = this.json.createObjectNode().put("type", "content_block_start").put("index", 0);
		blockStart.putObject("content_block").put("type", "text").put("text", "");
		frames.add(frame("content_block_start", blockStart, false));
		frames.add(frame("ping", this.json.createObjectNode().put("type", "ping"), false));
		if (!refusal) {
			for (String token : tokens) {
				ObjectNode delta = this.json.createObjectNode().put("type", "content_block_delta").put("index", 0);
				delta.putObject("delta").put("type", "text_delta").put("text", token);
				frames.add(frame("content_block_delta", delta, true));
			}
		}
		frames.add(frame("content_block_stop",
				this.json.createObjectNode().put("type", "content_block_stop").put("index", 0), false));
		ObjectNode end = this.json.createObjectNode().put("type", "message_delta");
		end.putObject("delta").put("stop_reason", refusal ? "refusal" : "end_turn").putNull("stop_sequence");
		end.putObject("usage").put("output_tokens", refusal ? 0 : tokens.size());
		frames.add(frame("message_delta", end, refusal));
		frames.add(frame("message_stop", this.json.createObjectNode().put("type", "message_stop"), false));
		return frames;
	}

	private SseFrame frame(String event, ObjectNode data, boolean token) {
		return new SseFrame(event, this.json.writeValueAsString(data), token);
	}

	private String message(Prompt prompt, @Nullable String text, String stopReason) {
		ObjectNode body = this.json.createObjectNode();
		body.put("id", "msg_sim" + this.ids.incrementAndGet())
			.put("type", "message")
			.put("role", "assistant")
			.put("model", prompt.model());
		var content = body.putArray("content");
		if (text != null) {
			content.addObject().put("type", "text").put("text", text);
		}
		body.put("stop_reason", stopReason);
		body.putNull("stop_sequence");
		int outputTokens = (text != null) ? text.split(" ").length : 0;
		body.putObject("usage").put("input_tokens", prompt.tokens()).put("output_tokens", outputTokens);
		return this.json.writeValueAsString(body);
	}

	private Reply error(int status, String type, String message, @Nullable String errorCode) {
		ObjectNode body = this.json.createObjectNode().put("type", "error");
		ObjectNode error = body.putObject("error");
		error.put("type", type).put("message", message);
		if (errorCode != null) {
			error.putObject("details").put("error_code", errorCode);
		}
		body.put("request_id", "req_sim" + this.ids.incrementAndGet());
		return Reply.json(status, this.json.writeValueAsString(body));
	}

}
