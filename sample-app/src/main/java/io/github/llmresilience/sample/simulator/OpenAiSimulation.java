package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenAI chat completions. Error bodies are OpenAI's {@code {"error": {"message", "type",
 * "param", "code"}}} with the messages it really sends.
 */
final class OpenAiSimulation implements VendorSimulation {

	private final JsonMapper json;

	private final AtomicLong ids = new AtomicLong();

	OpenAiSimulation(JsonMapper json) {
		this.json = json;
	}

	@Override
	public Prompt read(String body) {
		JsonNode request;
		try {
			request = this.json.readTree(body);
		}
		catch (JacksonException ex) {
			throw new RejectedRequest(error(400, "We could not parse the JSON body of your request. (HINT: This likely "
					+ "means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but "
					+ "what was sent was not valid JSON.)", "invalid_request_error", null, null));
		}
		JsonNode messages = request.path("messages");
		if (!messages.isArray() || messages.isEmpty()) {
			throw new RejectedRequest(error(400, "Missing required parameter: 'messages'.", "invalid_request_error",
					"messages", "missing_required_parameter"));
		}
		StringBuilder question = new StringBuilder();
		for (JsonNode message : messages) {
			question.append(message.path("content").asString());
		}
		return new Prompt(request.path("model").asString("gpt-4o"), question.toString(),
				request.path("stream").asBoolean(false),
				request.path("stream_options").path("include_usage").asBoolean(false));
	}

	@Override
	public Reply answer(Prompt prompt, String text, Instant now) {
		return Reply.json(200, completion(prompt, text, "stop", now));
	}

	@Override
	public Reply refusal(Prompt prompt, Instant now) {
		// What OpenAI sends when its output filter stops an answer: a 200 with no content
		// and finish_reason content_filter (fixture
		// openai-200-finish-reason-content-filter).
		return Reply.json(200, completion(prompt, null, "content_filter", now));
	}

	@Override
	public Reply outage() {
		return error(503, "The server is overloaded or not ready yet.", "server_error", null, null);
	}

	@Override
	public Reply overloaded() {
		// OpenAI sheds load with a 429 that is not a rate limit (fixture
		// openai-429-server-overloaded).
		return error(429, "The server is currently overloaded with other requests. Sorry about that! You can retry "
				+ "your request, or contact us through our help center at help.openai.com if the error persists.",
				"server_error", null, null);
	}

	@Override
	public Reply serverError() {
		return error(500,
				"The server experienced an error while processing your request. Sorry about that! You can "
						+ "retry your request, or contact us through our help center at help.openai.com if the error "
						+ "persists.",
				"server_error", null, null);
	}

	@Override
	public Reply rateLimited(Prompt prompt, int retryAfterSeconds, Instant now) {
		Reply body = error(429,
				"Rate limit reached for " + prompt.model() + " in organization org-simulated on "
						+ "requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in "
						+ retryAfterSeconds + "s. Visit https://platform.openai.com/account/rate-limits to learn more.",
				"requests", null, "rate_limit_exceeded");
		return new Reply(429,
				Map.of("retry-after", Integer.toString(retryAfterSeconds), "x-ratelimit-limit-requests", "500",
						"x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", retryAfterSeconds + "s"),
				body.body());
	}

	@Override
	public Map<String, String> requestLimitHeaders(long limit, long remaining, Duration reset, Instant now) {
		// OpenAI's reset is a duration such as "1s", "6m0s" or "20ms".
		long millis = Math.max(0, reset.toMillis());
		String resetText = (millis < 1000) ? millis + "ms" : (millis / 1000) + "s";
		return Map.of("x-ratelimit-limit-requests", Long.toString(limit), "x-ratelimit-remaining-requests",
				Long.toString(Math.max(0, remaining)), "x-ratelimit-reset-requests", resetText);
	}

	@Override
	public Reply quotaExhausted(Instant now) {
		return error(429,
				"You exceeded your current quota, please check your plan and billing details. For more "
						+ "information on this error, read the docs: "
						+ "https://platform.openai.com/docs/guides/error-codes/api-errors.",
				"insufficient_quota", null, "insufficient_quota");
	}

	@Override
	public Reply contextTooLong(Prompt prompt) {
		int completion = 1000;
		return error(400, "This model's maximum context length is " + Prompt.CONTEXT_TOKENS + " tokens. However, you "
				+ "requested " + (prompt.tokens() + completion) + " tokens (" + prompt.tokens() + " in the messages, "
				+ completion + " in the completion). Please reduce the length of the messages or completion.",
				"invalid_request_error", "messages", "context_length_exceeded");
	}

	@Override
	public List<SseFrame> stream(Prompt prompt, List<String> tokens, boolean refusal, Instant now) {
		String id = "chatcmpl-sim" + this.ids.incrementAndGet();
		List<SseFrame> frames = new ArrayList<>();
		frames.add(new SseFrame(null,
				chunk(id, prompt, now, (delta) -> delta.put("role", "assistant").put("content", ""), null), false));
		if (!refusal) {
			for (String token : tokens) {
				frames.add(
						new SseFrame(null, chunk(id, prompt, now, (delta) -> delta.put("content", token), null), true));
			}
		}
		frames.add(new SseFrame(null, chunk(id, prompt, now, (delta) -> {
		}, refusal ? "content_filter" : "stop"), refusal));
		if (prompt.streamUsage()) {
			// As OpenAI sends it: one last chunk with no choices and the whole usage.
			ObjectNode usage = this.json.createObjectNode();
			usage.put("id", id)
				.put("object", "chat.completion.chunk")
				.put("created", now.getEpochSecond())
				.put("model", prompt.model())
				.putArray("choices");
			int completion = refusal ? 0 : tokens.size();
			usage.putObject("usage")
				.put("prompt_tokens", prompt.tokens())
				.put("completion_tokens", completion)
				.put("total_tokens", prompt.tokens() + completion);
			frames.add(new SseFrame(null, this.json.writeValueAsString(usage), false));
		}
		frames.add(new SseFrame(null, "[DONE]", false));
		return frames;
	}

	private String chunk(String id, Prompt prompt, Instant now, Consumer<ObjectNode> delta,
			@Nullable String finishReason) {
		ObjectNode chunk = this.json.createObjectNode();
		chunk.put("id", id)
			.put("object", "chat.completion.chunk")
			.put("created", now.getEpochSecond())
			.put("model", prompt.model());
		ObjectNode choice = chunk.putArray("choices").addObject();
		choice.put("index", 0);
		delta.accept(choice.putObject("delta"));
		choice.putNull("logprobs");
		if (finishReason != null) {
			choice.put("finish_reason", finishReason);
		}
		else {
			choice.putNull("finish_reason");
		}
		return this.json.writeValueAsString(chunk);
	}

	private String completion(Prompt prompt, @Nullable String text, String finishReason, Instant now) {
		ObjectNode body = this.json.createObjectNode();
		body.put("id", "chatcmpl-sim" + this.ids.incrementAndGet())
			.put("object", "chat.completion")
			.put("created", now.getEpochSecond())
			.put("model", prompt.model());
		ArrayNode choices = body.putArray("choices");
		ObjectNode choice = choices.addObject();
		choice.put("index", 0);
		ObjectNode message = choice.putObject("message");
		message.put("role", "assistant");
		if (text != null) {
			message.put("content", text);
		}
		else {
			message.putNull("content");
		}
		message.putNull("refusal");
		choice.putNull("logprobs");
		choice.put("finish_reason", finishReason);
		int completionTokens = (text != null) ? text.split(" ").length : 0;
		body.putObject("usage")
			.put("prompt_tokens", prompt.tokens())
			.put("completion_tokens", completionTokens)
			.put("total_tokens", prompt.tokens() + completionTokens);
		return this.json.writeValueAsString(body);
	}

	private Reply error(int status, String message, String type, @Nullable String param, @Nullable String code) {
		ObjectNode body = this.json.createObjectNode();
		ObjectNode error = body.putObject("error");
		error.put("message", message);
		error.put("type", type);
		if (param != null) {
			error.put("param", param);
		}
		else {
			error.putNull("param");
		}
		if (code != null) {
			error.put("code", code);
		}
		else {
			error.putNull("code");
		}
		return Reply.json(status, this.json.writeValueAsString(body));
	}

}
