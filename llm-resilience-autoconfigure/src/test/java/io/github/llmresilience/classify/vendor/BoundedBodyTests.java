package io.github.llmresilience.classify.vendor;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 2xx body of many megabytes costs what a short one does: only a bounded prefix is kept
 * and scanned for markers, so an error or refusal marker beyond it is not seen.
 */
class BoundedBodyTests {

	private static final Map<String, List<String>> JSON = Map.of("content-type", List.of("application/json"));

	@Test
	void aStringBodyIsKeptOnlyAsFarAsTheBoundedPrefix() {
		String body = "{\"choices\":[{\"message\":{\"content\":\"" + "x".repeat(8 * 1024 * 1024) + "\"}}]}";
		ProviderResponse response = ProviderResponse.of(200, JSON, body);
		// Lengths, not strings: a failure must not print megabytes.
		assertThat(response.body().length()).isEqualTo(ProviderResponse.MAX_BODY_BYTES);
		assertThat(body.startsWith(response.body())).isTrue();
		assertThat(ProviderResponse.of(200, JSON, "{}").body()).isEqualTo("{}");
		assertThat(ProviderResponse.of(200, JSON, (String) null).body()).isEmpty();
	}

	@Test
	void aMarkerBeyondThePrefixOfAMultiMegabyteSuccessIsNotSeen() {
		String padding = "x".repeat(4 * 1024 * 1024);
		for (String provider : BuiltInClassifiers.PROVIDER_IDS) {
			String refusedLate = "{\"choices\":[{\"message\":{\"content\":\"" + padding
					+ "\"},\"finish_reason\":\"content_filter\"}],\"stop_reason\":\"refusal\",\"error\":{}}";
			assertThat(BuiltInClassifiers.forProvider(provider)
				.classify(ProviderResponse.of(200, JSON, refusedLate))
				.outcome()).as(provider).isEqualTo(Outcome.SUCCESS);
		}
		// The same refusal within the prefix is read.
		String refusedEarly = "{\"choices\":[{\"finish_reason\":\"content_filter\",\"message\":{\"content\":\""
				+ padding + "\"}}]}";
		assertThat(BuiltInClassifiers.forProvider("openai")
			.classify(ProviderResponse.of(200, JSON, refusedEarly))
			.outcome()).isEqualTo(Outcome.CONTENT_FILTER);
	}

	@Test
	void theMarkerScanReadsNoCharacterBeyondThePrefix() {
		for (int size : new int[] { 1024, JsonBody.MAX_CHARS, 1024 * 1024, 16 * 1024 * 1024 }) {
			CountingText body = new CountingText(size);
			assertThat(VendorClassifier.containsAny(body, new String[] { "\"error\"", "content_filter" })).isFalse();
			// The characters read never exceed the prefix, whatever the body's size.
			assertThat(body.furthest).as("furthest index read of %d", size)
				.isLessThan(Math.min(size, JsonBody.MAX_CHARS));
		}
		String marked = "x".repeat(100) + "\"error\"";
		assertThat(VendorClassifier.indexOf(marked, "\"error\"", marked.length())).isEqualTo(100);
		assertThat(VendorClassifier.indexOf(marked, "\"error\"", 100)).isEqualTo(-1);
		assertThat(VendorClassifier.indexOf(marked, "\"error\"", 101)).isEqualTo(100);
		assertThat(VendorClassifier.indexOf("ab", "abc", 2)).isEqualTo(-1);
	}

	/** A body of {@code x}s that remembers the furthest character read. */
	private static final class CountingText implements CharSequence {

		private final int length;

		private int furthest = -1;

		CountingText(int length) {
			this.length = length;
		}

		@Override
		public int length() {
			return this.length;
		}

		@Override
		public char charAt(int index) {
			this.furthest = Math.max(this.furthest, index);
			return 'x';
		}

		@Override
		public CharSequence subSequence(int start, int end) {
			throw new UnsupportedOperationException("the scan must not copy the body");
		}

	}

}
