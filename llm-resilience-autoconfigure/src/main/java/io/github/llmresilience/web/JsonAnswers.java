package io.github.llmresilience.web;

import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;

/**
 * Which success answers the web adapters classify: a 2xx whose content type is JSON
 * ({@code application/json} or any {@code +json} type), where a refusal
 * ({@code finish_reason: content_filter}, {@code stop_reason: refusal}) or a proxy's
 * error envelope ({@code {"error": {...}}} with status 200) hides. Event streams are
 * never read here: buffering them would hold back every token until the prefix is full.
 */
final class JsonAnswers {

	private JsonAnswers() {
	}

	static boolean classifiable(HttpStatusCode status, HttpHeaders headers) {
		return status.is2xxSuccessful() && isJson(headers.get(HttpHeaders.CONTENT_TYPE));
	}

	/**
	 * Whether the first content type is JSON. Parsed by hand rather than with
	 * {@code MediaType}, which throws on the malformed values some proxies send.
	 */
	static boolean isJson(@Nullable List<String> contentTypes) {
		if (contentTypes == null || contentTypes.isEmpty() || contentTypes.get(0) == null) {
			return false;
		}
		String value = contentTypes.get(0);
		int parameters = value.indexOf(';');
		String type = ((parameters >= 0) ? value.substring(0, parameters) : value).trim().toLowerCase(Locale.ROOT);
		int slash = type.indexOf('/');
		if (slash <= 0) {
			return false;
		}
		String subtype = type.substring(slash + 1);
		return type.startsWith("application/") && (subtype.equals("json") || subtype.endsWith("+json"));
	}

}
