package io.github.llmresilience.classify.vendor;

import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Splits the text of a server-sent-event stream into events, reading at most
 * {@link #MAX_EVENTS} events of a bounded prefix. Lines are {@code event:} and
 * {@code data:} fields; several {@code data:} lines join with a newline; comments and
 * unknown fields are skipped.
 */
final class SseEvents {

	static final int MAX_EVENTS = 10_000;

	private SseEvents() {
	}

	/** One event: its name (or {@code null}) and its data. */
	record Event(@Nullable String name, String data) {
	}

	static List<Event> parse(String text) {
		List<Event> events = new ArrayList<>();
		int end = Math.min(text.length(), ProviderResponse.MAX_BODY_BYTES);
		String name = null;
		StringBuilder data = null;
		int lineStart = 0;
		while (lineStart <= end && events.size() < MAX_EVENTS) {
			int lineEnd = lineStart;
			while (lineEnd < end && text.charAt(lineEnd) != '\n' && text.charAt(lineEnd) != '\r') {
				lineEnd++;
			}
			String line = text.substring(lineStart, lineEnd);
			if (line.isEmpty()) {
				if (data != null || name != null) {
					events.add(new Event(name, (data != null) ? data.toString() : ""));
				}
				name = null;
				data = null;
			}
			else if (line.startsWith("data:")) {
				String value = stripSpace(line.substring(5));
				data = (data == null) ? new StringBuilder(value) : data.append('\n').append(value);
			}
			else if (line.startsWith("event:")) {
				name = stripSpace(line.substring(6));
			}
			if (lineEnd >= end) {
				break;
			}
			// \r\n counts as one line break.
			lineStart = lineEnd
					+ ((text.charAt(lineEnd) == '\r' && lineEnd + 1 < end && text.charAt(lineEnd + 1) == '\n') ? 2 : 1);
		}
		if ((data != null || name != null) && events.size() < MAX_EVENTS) {
			events.add(new Event(name, (data != null) ? data.toString() : ""));
		}
		return events;
	}

	private static String stripSpace(String value) {
		return (!value.isEmpty() && value.charAt(0) == ' ') ? value.substring(1) : value;
	}

}
