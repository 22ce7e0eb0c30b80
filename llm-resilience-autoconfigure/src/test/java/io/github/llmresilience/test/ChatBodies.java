package io.github.llmresilience.test;

/**
 * What the OpenAI and Anthropic APIs answer, for the tests of the model clients over the
 * {@link FakeProvider}: Spring AI's SDK clients and LangChain4j's models read the same
 * bodies.
 */
public final class ChatBodies {

	public static final String OPENAI_OK = """
			{"id":"chatcmpl-1","object":"chat.completion","created":1764547200,"model":"gpt-4o",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Hello from gpt","refusal":null},
			"finish_reason":"stop","logprobs":null}],
			"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}""";

	public static final String ANTHROPIC_OK = """
			{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4",
			"content":[{"type":"text","text":"Hello from claude"}],"stop_reason":"end_turn","stop_sequence":null,
			"usage":{"input_tokens":5,"output_tokens":3}}""";

	public static final String ANTHROPIC_STREAM = """
			event: message_start
			data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

			event: content_block_start
			data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

			event: content_block_delta
			data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello from claude"}}

			event: content_block_stop
			data: {"type":"content_block_stop","index":0}

			event: message_delta
			data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}

			event: message_stop
			data: {"type":"message_stop"}

			""";

	public static final String OPENAI_SERVER_ERROR = """
			{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}""";

	public static final String OPENAI_RATE_LIMIT = """
			{"error":{"message":"Rate limit reached for gpt-4o on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}""";

	public static final String OPENAI_QUOTA = """
			{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}""";

	public static final String OPENAI_BAD_REQUEST = """
			{"error":{"message":"Invalid value for 'temperature': must be between 0 and 2.","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}""";

	public static final String OPENAI_CONTENT_FILTER = """
			{"error":{"message":"The response was filtered due to the prompt triggering content management policy.","type":null,"param":"prompt","code":"content_filter","status":400}}""";

	public static final String ANTHROPIC_RATE_LIMIT = """
			{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}""";

	public static final String OPENAI_STREAM_FIRST_TOKEN = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
			+ "\"created\":1764547200,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
			+ "\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n";

	/** An error event inside a 200 stream, as OpenAI sends when it fails mid-answer. */
	public static final String OPENAI_STREAM_ERROR = "data: {\"error\":{\"message\":\"The server had an error while "
			+ "processing your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n";

	public static final String OPENAI_STREAM = OPENAI_STREAM_FIRST_TOKEN + "data: {\"id\":\"chatcmpl-1\","
			+ "\"object\":\"chat.completion.chunk\",\"created\":1764547200,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
			+ "\"delta\":{\"content\":\"lo from gpt\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

	/** Anthropic's overload inside a 200 stream, before any content. */
	public static final String ANTHROPIC_STREAM_OVERLOADED = "event: error\ndata: {\"type\":\"error\",\"error\":"
			+ "{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";

	private ChatBodies() {
	}

}
