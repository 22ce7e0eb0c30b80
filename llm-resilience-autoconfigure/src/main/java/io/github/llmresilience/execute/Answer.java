package io.github.llmresilience.execute;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.usage.Usage;
import io.github.llmresilience.usage.UsageReader;
import org.jspecify.annotations.Nullable;

/**
 * What one successful attempt's answer told, as its call function handed it over
 * ({@link Attempt#answered}, {@link Attempt#usage}): the provider's headers (rate-limit
 * capacity, its own processing time) and the tokens used. The body's usage is read only
 * when first asked for, so an answer nobody asks about costs no parsing.
 */
public final class Answer {

	/** Nothing handed over. */
	static final Answer NONE = new Answer(Map.of(), null, null);

	private final Map<String, List<String>> headers;

	private final @Nullable String body;

	private @Nullable Usage usage;

	private boolean read;

	/**
	 * @param headers the answer's headers, case-insensitive
	 * @param body the body whose usage is read when asked for, or {@code null}
	 * @param usage usage known already (from the caller or a stream's events), or
	 * {@code null}
	 */
	Answer(Map<String, List<String>> headers, @Nullable String body, @Nullable Usage usage) {
		this.headers = headers;
		this.body = body;
		this.usage = usage;
		this.read = (body == null && headers.isEmpty());
	}

	/**
	 * The tokens the answer used: what the caller reported, or what the provider's body
	 * or stream events said; {@code null} when neither tells.
	 */
	public synchronized @Nullable Usage usage() {
		if (!this.read) {
			this.read = true;
			Usage fromBody = UsageReader.read(this.body, this.headers);
			if (fromBody != null) {
				this.usage = (this.usage != null) ? this.usage.max(fromBody) : fromBody;
			}
		}
		return this.usage;
	}

	/**
	 * The first value of a header of the answer, its name matched case-insensitively.
	 * @return the value, or {@code null} when the answer had no such header or none were
	 * handed over
	 */
	public @Nullable String header(String name) {
		List<String> values = this.headers.get(name);
		return (values != null && !values.isEmpty()) ? values.get(0) : null;
	}

	/** Every header handed over, names case-insensitive; empty when none were. */
	public Map<String, List<String>> headers() {
		return this.headers;
	}

	/** Whether anything was handed over. */
	boolean isEmpty() {
		return this == NONE;
	}

	/** Build one from a {@link ProviderResponse}'s parts. */
	static Answer of(ProviderResponse response, @Nullable Usage usage) {
		return new Answer(response.headers(), response.body(), usage);
	}

	@Override
	public String toString() {
		return "Answer[headers=" + this.headers.keySet() + ", usage=" + usage() + "]";
	}

}
