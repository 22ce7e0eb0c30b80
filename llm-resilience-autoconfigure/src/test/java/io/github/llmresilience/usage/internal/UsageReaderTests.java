package io.github.llmresilience.usage.internal;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.usage.Usage;
import io.github.llmresilience.usage.UsageReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Token usage as each vendor reports it, in answers and stream events, and what garbage
 * yields.
 */
class UsageReaderTests {

	@Test
	void openAiChatCompletion() {
		String body = """
				{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,
				 "model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant",
				 "content":"The usage of tokens is {\\"usage\\": 1}","refusal":null},"finish_reason":"stop"}],
				 "usage":{"prompt_tokens":1117,"completion_tokens":46,"total_tokens":1163,
				  "prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},
				  "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}},
				 "service_tier":"default","system_fingerprint":"fp_fc9f1d7035"}""";
		assertThat(UsageReader.read(body)).isEqualTo(new Usage(1117, 46));
	}

	@Test
	void openAiStreamLastChunkAndChunksWithoutUsage() {
		assertThat(UsageReader
			.read("""
					{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":null}"""))
			.isNull();
		assertThat(UsageReader.read("""
				{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],
				 "usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}""")).isEqualTo(new Usage(9, 12));
		assertThat(UsageReader.read("[DONE]")).isNull();
	}

	@Test
	void openAiResponsesAnswerAndCompletedEvent() {
		assertThat(UsageReader.read("""
				{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message",
				 "content":[{"type":"output_text","text":"Hello"}]}],
				 "usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},"output_tokens":87,
				  "output_tokens_details":{"reasoning_tokens":0},"total_tokens":123}}""")).isEqualTo(new Usage(36, 87));
		assertThat(UsageReader.read("""
				{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","status":"completed",
				 "usage":{"input_tokens":36,"output_tokens":87,"total_tokens":123}}}""")).isEqualTo(new Usage(36, 87));
	}

	@Test
	void anthropicMessageCountsCacheTokensAsInput() {
		assertThat(UsageReader.read("""
				{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5",
				 "content":[{"type":"text","text":"Hi!"}],"stop_reason":"end_turn","stop_sequence":null,
				 "usage":{"input_tokens":2095,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,
				  "output_tokens":503,"service_tier":"standard"}}""")).isEqualTo(new Usage(3195, 503));
	}

	@Test
	void anthropicStreamEventsCombineByTheLargerCount() {
		Usage start = UsageReader.read(ProviderResponse.streamEvent("message_start", """
				{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],
				 "usage":{"input_tokens":25,"output_tokens":1}}}"""));
		Usage delta = UsageReader.read(ProviderResponse.streamEvent("message_delta",
				"""
						{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}"""));
		assertThat(UsageReader.read(ProviderResponse.streamEvent("content_block_delta", """
				{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"""))).isNull();
		assertThat(start).isEqualTo(new Usage(25, 1));
		assertThat(delta).isEqualTo(new Usage(0, 15));
		assertThat(start.max(delta)).isEqualTo(new Usage(25, 15));
	}

	@Test
	void geminiCountsThoughtsAsOutput() {
		assertThat(UsageReader.read("""
				{"candidates":[{"content":{"parts":[{"text":"Hello"}],"role":"model"},"finishReason":"STOP"}],
				 "usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":120,"totalTokenCount":228,
				  "thoughtsTokenCount":100,"promptTokensDetails":[{"modality":"TEXT","tokenCount":8}]},
				 "modelVersion":"gemini-2.5-flash"}""")).isEqualTo(new Usage(8, 220));
	}

	@Test
	void bedrockConverseBodyAndInvokeModelHeaders() {
		assertThat(UsageReader.read("""
				{"output":{"message":{"role":"assistant","content":[{"text":"Hi"}]}},"stopReason":"end_turn",
				 "usage":{"inputTokens":30,"outputTokens":628,"totalTokens":658},"metrics":{"latencyMs":1275}}"""))
			.isEqualTo(new Usage(30, 628));
		assertThat(UsageReader.read(ProviderResponse.streamEvent("metadata", """
				{"usage":{"inputTokens":30,"outputTokens":628,"totalTokens":658},"metrics":{"latencyMs":1275}}""")))
			.isEqualTo(new Usage(30, 628));
		ProviderResponse invoke = ProviderResponse.of(200, Map.of("X-Amzn-Bedrock-Input-Token-Count", List.of("12"),
				"X-Amzn-Bedrock-Output-Token-Count", List.of("34")), "{\"completion\":\"hi\"}");
		assertThat(UsageReader.read(invoke)).isEqualTo(new Usage(12, 34));
	}

	@Test
	void cohereBilledUnitsCount() {
		assertThat(UsageReader
			.read("""
					{"id":"c1","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}]},
					 "usage":{"billed_units":{"input_tokens":5,"output_tokens":418},"tokens":{"input_tokens":71,"output_tokens":418}}}"""))
			.isEqualTo(new Usage(5, 418));
		assertThat(UsageReader
			.read("""
					{"text":"Hi","meta":{"api_version":{"version":"1"},"billed_units":{"input_tokens":3,"output_tokens":7}}}"""))
			.isEqualTo(new Usage(3, 7));
	}

	@Test
	void usageAfterAnAnswerOfManyKilobytesIsRead() {
		String text = "x".repeat(2_000_000);
		String body = "{\"choices\":[{\"message\":{\"content\":\"" + text + "\"}}],"
				+ "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":500000}}";
		assertThat(UsageReader.read(body)).isEqualTo(new Usage(5, 500_000));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "null", "{", "{\"usage\":", "{\"usage\":{\"prompt_tokens\":", "<html>502</html>",
			"{\"usage\":\"lots\"}", "{\"usage\":[1,2]}", "{\"usage\":{}}", "{\"usage\":null}",
			"{\"usage\":{\"prompt_tokens\":-5,\"completion_tokens\":-1}}",
			"{\"usage\":{\"prompt_tokens\":1.5,\"completion_tokens\":\"7\"}}",
			"{\"usage\":{\"prompt_tokens\":99999999999999999999999,\"completion_tokens\":true}}",
			"{\"a\":{\"b\":{\"c\":{\"usage\":{\"prompt_tokens\":1}}}}}" })
	void garbageYieldsNoUsageAndNeverThrows(String body) {
		assertThat(UsageReader.read(body)).isNull();
		assertThat(UsageReader.read(ProviderResponse.of(200, Map.of(), body))).isNull();
	}

	@Test
	void deeplyNestedGarbageNeverThrows() {
		String body = "{\"usage\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
		assertThat(UsageReader.read(body)).isNull();
		assertThat(UsageReader.read("{\"x\":" + "{\"usage\":".repeat(5_000))).isNull();
	}

	@Test
	void aCountPastLongIsDroppedAndTheOtherKept() {
		assertThat(UsageReader.read("{\"usage\":{\"prompt_tokens\":99999999999999999999999,\"completion_tokens\":7}}"))
			.isEqualTo(new Usage(0, 7));
	}

	@Test
	void garbageHeadersYieldNoUsage() {
		ProviderResponse answer = ProviderResponse.of(200, Map.of("x-amzn-bedrock-input-token-count", List.of("-3"),
				"x-amzn-bedrock-output-token-count", List.of("many")), "");
		assertThat(UsageReader.read(answer)).isNull();
	}

	@Test
	void usageSumsSaturateAndNeverGoNegative() {
		assertThat(UsageReader.read("{\"usage\":{\"input_tokens\":9223372036854775807,"
				+ "\"cache_read_input_tokens\":9223372036854775807,\"output_tokens\":1}}"))
			.isEqualTo(new Usage(Long.MAX_VALUE, 1));
		assertThat(new Usage(Long.MAX_VALUE, Long.MAX_VALUE).totalTokens()).isEqualTo(Long.MAX_VALUE);
		assertThatIllegalArgumentException().isThrownBy(() -> new Usage(-1, 0)).withMessageContaining("negative");
	}

}
