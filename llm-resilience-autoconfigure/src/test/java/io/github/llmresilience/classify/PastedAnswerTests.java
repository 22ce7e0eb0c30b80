package io.github.llmresilience.classify;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * "Why this verdict?" for a pasted answer, and the command in the jar: a verdict with its
 * reason, or one line saying why the answer cannot be read.
 */
class PastedAnswerTests {

	// https://github.com/MoonshotAI/Kimi-K2/issues/5 (ids masked by the reporter)
	private static final String RAW = "HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\n\r\n"
			+ "{\"error\":{\"message\":\"Your account org-...<ak-...> is not active, organization <org-...> exceeded "
			+ "current quota, please check your plan and billing details\",\"type\":\"exceeded_current_quota_error\"}}";

	@Test
	void aRawAnswerIsReadWholeAndExplained() {
		PastedAnswer.Explanation explanation = PastedAnswer.explain("moonshot", null, null, RAW);
		assertThat(explanation.status()).isEqualTo(403);
		assertThat(explanation.outcome()).isEqualTo("QUOTA");
		assertThat(explanation.reason()).isEqualTo("vendor code exceeded_current_quota_error");
		assertThat(explanation.failover()).isTrue();
		assertThat(explanation.retry()).isFalse();
	}

	@Test
	void statusHeadersAndBodyApart() {
		PastedAnswer.Explanation explanation = PastedAnswer.explain("openai", "HTTP/2 429", "Retry-After: 7\nx: y",
				"{\"error\":{\"message\":\"slow down\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}");
		assertThat(explanation.outcome()).isEqualTo("THROTTLED");
		assertThat(explanation.waitMillis()).isEqualTo(7000L);
		assertThat(PastedAnswer.explain("openai", "503", "{\"retry-after\": \"3\"}", "").waitMillis()).isEqualTo(3000L);
	}

	@Test
	void garbageGetsAVerdictOrOneLine() {
		assertThat(PastedAnswer.explain("openai", "400", null, "\u0000\u00ff{{{[[[").outcome()).isEqualTo("REQUEST");
		assertThat(PastedAnswer.explain("openai", "500", "", null).outcome()).isEqualTo("AVAILABILITY");
		assertThatIllegalArgumentException().isThrownBy(() -> PastedAnswer.explain("openai", "abc", null, ""))
			.withMessage("\"status\" must be an HTTP status from 100 to 599, was 'abc'");
		assertThatIllegalArgumentException().isThrownBy(() -> PastedAnswer.explain("openai", "99", null, ""))
			.withMessageNotContaining("\n");
		assertThatIllegalArgumentException().isThrownBy(() -> PastedAnswer.explain("openai", null, null, "oops"))
			.withMessageStartingWith("No status");
		assertThatIllegalArgumentException().isThrownBy(() -> PastedAnswer.explain("openai", "429", "[1,2]", ""))
			.withMessageNotContaining("\n");
		assertThatIllegalArgumentException().isThrownBy(() -> PastedAnswer.explain("nope", "429", null, ""))
			.withMessageStartingWith("Unknown LLM provider id 'nope'");
	}

	@Test
	void theCommandPrintsTheVerdictOrOneLine() {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		ByteArrayOutputStream err = new ByteArrayOutputStream();
		int status = PastedAnswer.run(new String[] { "moonshot" },
				new ByteArrayInputStream(RAW.getBytes(StandardCharsets.UTF_8)), new PrintStream(out),
				new PrintStream(err));
		assertThat(status).isZero();
		assertThat(out.toString(StandardCharsets.UTF_8)).contains("outcome: QUOTA")
			.contains("reason: vendor code exceeded_current_quota_error");
		err.reset();
		status = PastedAnswer.run(new String[] { "moonshot" },
				new ByteArrayInputStream("not an answer".getBytes(StandardCharsets.UTF_8)), new PrintStream(out),
				new PrintStream(err));
		assertThat(status).isEqualTo(2);
		assertThat(err.toString(StandardCharsets.UTF_8).strip()).startsWith("No status").doesNotContain("\n");
		err.reset();
		assertThat(PastedAnswer.run(new String[0], new ByteArrayInputStream(new byte[0]), new PrintStream(out),
				new PrintStream(err)))
			.isEqualTo(2);
		assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("usage:");
	}

}
