package io.github.llmresilience.classify;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.classify.vendor.JsonBody;
import org.jspecify.annotations.Nullable;

/**
 * "Why this verdict?" for an answer pasted as text: its status, its headers and its body,
 * or the whole raw HTTP answer ({@code HTTP/1.1 429 Too Many Requests}, the header lines,
 * a blank line, the body). The endpoint's {@code verdict} read operation and the
 * {@link #main command} in the jar both read answers through here.
 *
 * <p>
 * Garbage gets a verdict (a body is never refused) or one line of
 * {@link IllegalArgumentException} (a status that is not one, a header line without a
 * colon, an unknown provider id); never a stack trace.
 */
public final class PastedAnswer {

	private PastedAnswer() {
	}

	/**
	 * What a verdict says, for people: the outcome and its three decisions, the wait, and
	 * what decided it.
	 *
	 * @param provider the provider id whose classifier read the answer
	 * @param status the status read
	 * @param outcome the verdict's outcome
	 * @param reason what decided it ({@link Verdict#reason()})
	 * @param rule {@code built-in}, {@code default} or the user's {@code rules[i]}
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param waitMillis the wait asked for, in milliseconds, or {@code null}
	 * @param providerWide whether it speaks for the provider's whole fleet
	 * @param retry whether the same target may be tried again
	 * @param failover whether the next target may serve the call
	 * @param countsAsFailure whether the breaker counts it
	 */
	public record Explanation(String provider, int status, String outcome, String reason, String rule,
			@Nullable String errorType, @Nullable Long waitMillis, boolean providerWide, boolean retry,
			boolean failover, boolean countsAsFailure) {

		/** The explanation of a verdict. */
		public static Explanation of(String provider, int status, Verdict verdict) {
			return new Explanation(provider, status, verdict.outcome().name(), verdict.reason(), verdict.rule(),
					verdict.errorType().orElse(null), verdict.waitHint().map((wait) -> wait.toMillis()).orElse(null),
					verdict.providerWide(), verdict.retry(), verdict.failover(), verdict.countsAsFailure());
		}

		/** One {@code name: value} line per field. */
		public String toText() {
			return "provider: " + this.provider + "\nstatus: " + this.status + "\noutcome: " + this.outcome
					+ "\nreason: " + this.reason + "\nrule: " + this.rule + "\nerror type: "
					+ ((this.errorType != null) ? this.errorType : "-") + "\nwait: "
					+ ((this.waitMillis != null) ? this.waitMillis + " ms" : "-") + "\nprovider-wide: "
					+ this.providerWide + "\nretry: " + this.retry + ", failover: " + this.failover
					+ ", counts as failure: " + this.countsAsFailure + "\n";
		}

	}

	/**
	 * Read a pasted answer.
	 * @param status the status ({@code 429}, or a status line
	 * {@code HTTP/1.1 429 Too Many
	 * Requests}); {@code null} or blank when the body is the whole raw answer
	 * @param headers the headers, one {@code Name: value} a line, or a JSON object; may
	 * be {@code null}
	 * @param body the body, or the whole raw answer when no status is given; may be
	 * {@code null}
	 * @return the answer
	 * @throws IllegalArgumentException (one line) when the status or a header line cannot
	 * be read
	 */
	public static ProviderResponse parse(@Nullable String status, @Nullable String headers, @Nullable String body) {
		String text = (body != null) ? body : "";
		if (status == null || status.isBlank()) {
			String raw = text.stripLeading();
			if (!raw.regionMatches(true, 0, "HTTP/", 0, 5)) {
				throw new IllegalArgumentException(
						"No status: give \"status\" (such as 429), or paste the whole answer starting with its "
								+ "status line (HTTP/1.1 429 Too Many Requests)");
			}
			String normalized = raw.replace("\r\n", "\n");
			int headEnd = normalized.indexOf("\n\n");
			String head = (headEnd >= 0) ? normalized.substring(0, headEnd) : normalized;
			String rest = (headEnd >= 0) ? normalized.substring(headEnd + 2) : "";
			int lineEnd = head.indexOf('\n');
			String statusLine = (lineEnd >= 0) ? head.substring(0, lineEnd) : head;
			Map<String, List<String>> parsed = headers((lineEnd >= 0) ? head.substring(lineEnd + 1) : "");
			parsed.putAll(headers(headers));
			return ProviderResponse.of(status(statusLine), parsed, rest);
		}
		return ProviderResponse.of(status(status), headers(headers), text);
	}

	/**
	 * Classify a pasted answer with a provider's built-in classifier.
	 * @param provider a provider id ({@code openai}, {@code groq}, ...)
	 * @param status see {@link #parse}
	 * @param headers see {@link #parse}
	 * @param body see {@link #parse}
	 * @return the explanation
	 * @throws IllegalArgumentException (one line) for an unknown provider id or an answer
	 * that cannot be read
	 */
	public static Explanation explain(String provider, @Nullable String status, @Nullable String headers,
			@Nullable String body) {
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider(provider);
		ProviderResponse response = parse(status, headers, body);
		return Explanation.of(classifier.provider(), response.status(), classifier.classify(response));
	}

	static int status(String text) {
		String value = text.strip();
		if (value.regionMatches(true, 0, "HTTP/", 0, 5)) {
			String[] parts = value.split("\\s+");
			value = (parts.length > 1) ? parts[1] : "";
		}
		try {
			int status = Integer.parseInt(value);
			if (status >= 100 && status <= 599) {
				return status;
			}
		}
		catch (NumberFormatException ex) {
			// Said below, in one line.
		}
		throw new IllegalArgumentException(
				"\"status\" must be an HTTP status from 100 to 599, was '" + abbreviate(text) + "'");
	}

	static Map<String, List<String>> headers(@Nullable String text) {
		Map<String, List<String>> headers = new LinkedHashMap<>();
		if (text == null || text.isBlank()) {
			return headers;
		}
		String trimmed = text.strip();
		if (trimmed.startsWith("{")) {
			Object json = JsonBody.parse(trimmed);
			if (!(json instanceof Map<?, ?> map)) {
				throw new IllegalArgumentException("\"headers\" is neither a JSON object nor Name: value lines");
			}
			map.forEach((name, value) -> headers.computeIfAbsent(String.valueOf(name), (key) -> new ArrayList<>())
				.add(String.valueOf(value)));
			return headers;
		}
		for (String line : trimmed.split("\\r?\\n")) {
			if (line.isBlank()) {
				continue;
			}
			int colon = line.indexOf(':');
			if (colon <= 0) {
				throw new IllegalArgumentException(
						"A header line must read 'Name: value', was '" + abbreviate(line) + "'");
			}
			headers
				.computeIfAbsent(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), (key) -> new ArrayList<>())
				.add(line.substring(colon + 1).strip());
		}
		return headers;
	}

	private static String abbreviate(String text) {
		String oneLine = text.replaceAll("\\s+", " ").strip();
		return (oneLine.length() > 40) ? oneLine.substring(0, 40) + "..." : oneLine;
	}

	/**
	 * The command:
	 * {@code java -cp <the jar and jackson-core> io.github.llmresilience.classify.PastedAnswer
	 * <provider> [file]} reads a raw HTTP answer from the file (or standard input) and
	 * prints the verdict and its reason. Exit status 2 and one line on standard error
	 * when the answer cannot be read.
	 * @param args the provider id, and optionally the file
	 */
	public static void main(String[] args) {
		System.exit(run(args, System.in, System.out, System.err));
	}

	static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
		if (args.length < 1 || args.length > 2) {
			err.println("usage: PastedAnswer <provider> [file]  (the raw answer: status line, headers, blank line, "
					+ "body; standard input without a file)");
			return 2;
		}
		try {
			byte[] bytes = (args.length == 2) ? Files.readAllBytes(Path.of(args[1])) : in.readAllBytes();
			String answer = new String(bytes, StandardCharsets.UTF_8);
			out.print(explain(args[0], null, null, answer).toText());
			return 0;
		}
		catch (IllegalArgumentException ex) {
			err.println(ex.getMessage());
			return 2;
		}
		catch (IOException | RuntimeException ex) {
			err.println("Cannot read the answer: " + ex.getClass().getSimpleName());
			return 2;
		}
	}

}
