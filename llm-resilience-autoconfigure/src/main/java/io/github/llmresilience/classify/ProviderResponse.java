package io.github.llmresilience.classify;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * What came back from a provider, in the one shape classifiers read: an HTTP answer, one
 * event of a stream, a timeout or a connection failure.
 *
 * <p>
 * Header names are case-insensitive. Nothing here is trusted: bodies may be truncated,
 * HTML, binary or many megabytes long, and classifiers read only a bounded prefix.
 */
public final class ProviderResponse {

	/**
	 * The most bytes {@link #of(int, Map, byte[])} decodes, and the most characters
	 * {@link #of(int, Map, String)} keeps; classifiers read no further (a JSON body is
	 * read only as far as
	 * {@link io.github.llmresilience.classify.vendor.JsonBody#MAX_CHARS}).
	 */
	public static final int MAX_BODY_BYTES = 256 * 1024;

	private static final ProviderResponse TIMEOUT = new ProviderResponse(Kind.TIMEOUT, 0, Map.of(), "", null, null);

	/** The kinds of answer. */
	public enum Kind {

		/** An HTTP response with status, headers and body. */
		HTTP,

		/** One event of a stream: an SSE event or a Bedrock event-stream message. */
		STREAM_EVENT,

		/** No answer within the allowed time. */
		TIMEOUT,

		/** No answer at all: refused, reset, DNS or TLS failure. */
		CONNECTION_FAILURE

	}

	private final Kind kind;

	private final int status;

	private final Map<String, List<String>> headers;

	private final String body;

	private final @Nullable String event;

	private final @Nullable Throwable cause;

	private ProviderResponse(Kind kind, int status, Map<String, List<String>> headers, String body,
			@Nullable String event, @Nullable Throwable cause) {
		this.kind = kind;
		this.status = status;
		this.headers = headers;
		this.body = body;
		this.event = event;
		this.cause = cause;
	}

	/**
	 * An HTTP answer.
	 * @param status the HTTP status
	 * @param headers the headers (names are matched case-insensitively; may be
	 * {@code null})
	 * @param body the body as text (may be {@code null}); only its first
	 * {@link #MAX_BODY_BYTES} characters are kept
	 * @return the response
	 */
	public static ProviderResponse of(int status, @Nullable Map<String, List<String>> headers, @Nullable String body) {
		return new ProviderResponse(Kind.HTTP, status, caseInsensitive(headers), prefix(body), null, null);
	}

	/**
	 * An HTTP answer whose body is raw bytes; at most {@link #MAX_BODY_BYTES} are
	 * decoded, as UTF-8 with malformed sequences replaced.
	 * @param status the HTTP status
	 * @param headers the headers (may be {@code null})
	 * @param body the body bytes (may be {@code null})
	 * @return the response
	 */
	public static ProviderResponse of(int status, @Nullable Map<String, List<String>> headers, byte @Nullable [] body) {
		return of(status, headers, decode(body));
	}

	/**
	 * One event of a stream that answered 200: an SSE event (its {@code event:} name, or
	 * {@code null}, and its {@code data:}), or one Bedrock event-stream message (its
	 * {@code :exception-type} or {@code :event-type} header and its JSON payload).
	 * @param event the event name or exception type (may be {@code null})
	 * @param data the event's data (may be {@code null})
	 * @return the response
	 */
	public static ProviderResponse streamEvent(@Nullable String event, @Nullable String data) {
		return new ProviderResponse(Kind.STREAM_EVENT, 200, Map.of(), (data != null) ? data : "", event, null);
	}

	/** No answer within the allowed time. */
	public static ProviderResponse timeout() {
		return TIMEOUT;
	}

	/**
	 * No answer at all.
	 * @param cause what the client reported (may be {@code null})
	 * @return the response
	 */
	public static ProviderResponse connectionFailure(@Nullable Throwable cause) {
		return new ProviderResponse(Kind.CONNECTION_FAILURE, 0, Map.of(), "", null, cause);
	}

	public Kind kind() {
		return this.kind;
	}

	/** The HTTP status; 200 for a stream event; 0 for a timeout or connection failure. */
	public int status() {
		return this.status;
	}

	/** All headers, with case-insensitive names. */
	public Map<String, List<String>> headers() {
		return this.headers;
	}

	/**
	 * The first value of a header.
	 * @param name the header name, in any case
	 * @return the value, or {@code null}
	 */
	public @Nullable String header(String name) {
		List<String> values = this.headers.get(name);
		return (values == null || values.isEmpty()) ? null : values.get(0);
	}

	/** The body, or a stream event's data; never {@code null}. */
	public String body() {
		return this.body;
	}

	/** A stream event's name or exception type; {@code null} otherwise. */
	public @Nullable String event() {
		return this.event;
	}

	/** A connection failure's cause; {@code null} otherwise. */
	public @Nullable Throwable cause() {
		return this.cause;
	}

	/** Whether the answer is a stream of server-sent events. */
	public boolean isEventStream() {
		String contentType = header("content-type");
		return contentType != null && contentType.regionMatches(true, 0, "text/event-stream", 0, 17);
	}

	@Override
	public String toString() {
		// Deliberately without headers or body: they may echo credentials.
		return switch (this.kind) {
			case HTTP -> "HTTP " + this.status + " (" + this.body.length() + " chars)";
			case STREAM_EVENT -> "stream event " + ((this.event != null) ? this.event : "message");
			case TIMEOUT -> "timeout";
			case CONNECTION_FAILURE ->
				"connection failure" + ((this.cause != null) ? " (" + this.cause.getClass().getSimpleName() + ")" : "");
		};
	}

	private static Map<String, List<String>> caseInsensitive(@Nullable Map<String, List<String>> headers) {
		if (headers == null || headers.isEmpty()) {
			return Map.of();
		}
		TreeMap<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
		headers.forEach((name, values) -> {
			// HttpURLConnection reports the status line under a null name.
			if (name != null && values != null) {
				copy.merge(name, values, ProviderResponse::concat);
			}
		});
		return Collections.unmodifiableMap(copy);
	}

	private static List<String> concat(List<String> first, List<String> second) {
		return Stream.concat(first.stream(), second.stream()).filter(Objects::nonNull).toList();
	}

	/**
	 * The part of a body a classifier may read: a multi-megabyte answer must cost what a
	 * short one does, and must not be held on to by a verdict's response.
	 */
	private static String prefix(@Nullable String body) {
		if (body == null) {
			return "";
		}
		return (body.length() > MAX_BODY_BYTES) ? body.substring(0, MAX_BODY_BYTES) : body;
	}

	private static String decode(byte @Nullable [] body) {
		if (body == null || body.length == 0) {
			return "";
		}
		CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
			.onMalformedInput(CodingErrorAction.REPLACE)
			.onUnmappableCharacter(CodingErrorAction.REPLACE);
		try {
			return decoder.decode(ByteBuffer.wrap(body, 0, Math.min(body.length, MAX_BODY_BYTES))).toString();
		}
		catch (CharacterCodingException ex) {
			return "";
		}
	}

}
