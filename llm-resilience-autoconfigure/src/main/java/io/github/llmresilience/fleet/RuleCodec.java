package io.github.llmresilience.fleet;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.classify.ClassificationRule;
import org.jspecify.annotations.Nullable;

/**
 * Classification rules as one string for the fleet's store: each field URL-encoded, a
 * missing one as {@code ~}, fields joined by {@code ,}, rules by {@code ;}. The result
 * holds no tab, line break or {@code |}, which separate the store's own fields.
 */
final class RuleCodec {

	private static final String NONE = "~";

	private RuleCodec() {
	}

	static String encode(List<ClassificationRule> rules) {
		List<String> encoded = new ArrayList<>(rules.size());
		for (ClassificationRule rule : rules) {
			encoded.add(String.join(",", field(rule.provider()), field(rule.status()), field(rule.type()),
					field(rule.messageContains()), field(rule.outcome().name()),
					field((rule.waitHint() != null) ? rule.waitHint().toString() : null)));
		}
		return String.join(";", encoded);
	}

	/**
	 * The rules a string holds.
	 * @throws IllegalArgumentException when it holds no valid rules
	 */
	static List<ClassificationRule> decode(String encoded) {
		List<ClassificationRule> rules = new ArrayList<>();
		if (encoded.isEmpty()) {
			return rules;
		}
		for (String rule : encoded.split(";", -1)) {
			String[] f = rule.split(",", -1);
			if (f.length != 6) {
				throw new IllegalArgumentException("A rule needs 6 fields, had " + f.length);
			}
			rules.add(ClassificationRule.parse(value(f[0]), value(f[1]), value(f[2]), value(f[3]), value(f[4]),
					value(f[5])));
		}
		return rules;
	}

	private static String field(@Nullable String value) {
		return (value != null) ? URLEncoder.encode(value, StandardCharsets.UTF_8) : NONE;
	}

	private static @Nullable String value(String field) {
		return NONE.equals(field) ? null : URLDecoder.decode(field, StandardCharsets.UTF_8);
	}

}
