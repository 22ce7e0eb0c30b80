package io.github.llmresilience.classify.vendor;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import io.github.llmresilience.classify.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * The message families of the classification table, as data: one resource file of phrases
 * per family and outcome ({@code families/<family>.<OUTCOME>.txt} beside this class),
 * matched case-insensitively in a message, or in a body's bounded prefix when it has no
 * message.
 *
 * <p>
 * The families are tried in {@link #PRECEDENCE} order and the first family with a phrase
 * in the text decides: a long period before a short one (a per-day limit is QUOTA even
 * where the message also says "rate limit reached"), a short period before money (a
 * per-minute limit whose message links to a billing page is a throttle), money before
 * access (DashScope's unpaid bill says "access denied"), access before capacity.
 *
 * <p>
 * Matching costs one pass over at most {@link #MAX_CHARS} characters whatever the number
 * of phrases: the phrases are indexed by their first two characters.
 */
public final class MessageFamilies {

	/** The most characters of a message or body the families are matched in. */
	public static final int MAX_CHARS = 2048;

	/** The families, in the order they are tried; each names its resource file. */
	public static final List<String> PRECEDENCE = List.of("long-period.QUOTA", "short-period.THROTTLED", "money.QUOTA",
			"access.CREDENTIAL", "capacity.AVAILABILITY", "refusal.CONTENT_FILTER", "request.REQUEST");

	/** The built-in families, read once. */
	public static final MessageFamilies BUILT_IN = load();

	private static final int BUCKETS = 1 << 12;

	/** One family's phrases and outcome. */
	public record Family(String name, Outcome outcome, List<String> phrases, int rank) {
	}

	/** What matched: the family, and the phrase found. */
	public record Match(Family family, String phrase) {

		public Outcome outcome() {
			return this.family.outcome();
		}

		/** {@code message family money: "insufficient balance"}. */
		public String reason() {
			return "message family " + this.family.name() + ": \"" + this.phrase + "\"";
		}

	}

	private record Entry(String phrase, Family family) {
	}

	private final List<Family> families;

	private final Entry[][] buckets = new Entry[BUCKETS][];

	private MessageFamilies(List<Family> families) {
		this.families = List.copyOf(families);
		List<List<Entry>> lists = new ArrayList<>();
		for (int i = 0; i < BUCKETS; i++) {
			lists.add(null);
		}
		for (Family family : families) {
			for (String phrase : family.phrases()) {
				int bucket = bucket(phrase.charAt(0), phrase.charAt(1));
				if (lists.get(bucket) == null) {
					lists.set(bucket, new ArrayList<>());
				}
				lists.get(bucket).add(new Entry(phrase, family));
			}
		}
		for (int i = 0; i < BUCKETS; i++) {
			List<Entry> list = lists.get(i);
			if (list != null) {
				this.buckets[i] = list.toArray(new Entry[0]);
			}
		}
	}

	/** The families, in precedence order. */
	public List<Family> families() {
		return this.families;
	}

	/**
	 * The family of highest precedence with a phrase in the text.
	 * @param text a message or a body (only its first {@link #MAX_CHARS} characters are
	 * read); may be {@code null}
	 * @return the match, or {@code null} when no family's phrase is in the text
	 */
	public @Nullable Match match(@Nullable String text) {
		return match(text, null);
	}

	/**
	 * The family of highest precedence, among those of one outcome, with a phrase in the
	 * text.
	 * @param text a message or a body; may be {@code null}
	 * @param only the outcome the family must have, or {@code null} for any
	 * @return the match, or {@code null}
	 */
	public @Nullable Match match(@Nullable String text, @Nullable Outcome only) {
		if (text == null || text.length() < 2) {
			return null;
		}
		// No lower-case copy: the text is read in place, and a phrase is tried only where
		// a
		// word starts (every phrase starts a word, or is not Latin script).
		int end = Math.min(text.length(), MAX_CHARS);
		Entry best = null;
		char previous = ' ';
		char current = lower(text.charAt(0));
		for (int i = 0; i < end - 1; i++) {
			char next = lower(text.charAt(i + 1));
			// A word starts after a non-letter, at a capital ("PerDay"), or anywhere in
			// scripts without spaces.
			if (!Character.isLetter(previous) || current > 0x7f || isCapital(text.charAt(i))) {
				Entry[] bucket = this.buckets[bucket(current, next)];
				if (bucket != null) {
					for (Entry entry : bucket) {
						if ((only == null || entry.family().outcome() == only)
								&& (best == null || entry.family().rank() < best.family().rank())
								&& startsWith(text, i, end, entry.phrase())) {
							best = entry;
						}
					}
					if (best != null && best.family().rank() == 0) {
						break;
					}
				}
			}
			previous = current;
			current = next;
		}
		return (best != null) ? new Match(best.family(), best.phrase()) : null;
	}

	/** Whether the phrase (in lower case) starts at {@code at}, read in lower case. */
	private static boolean startsWith(String text, int at, int end, String phrase) {
		int length = phrase.length();
		if (at + length > end) {
			return false;
		}
		for (int k = 0; k < length; k++) {
			if (lower(text.charAt(at + k)) != phrase.charAt(k)) {
				return false;
			}
		}
		return true;
	}

	private static boolean isCapital(char c) {
		return c >= 'A' && c <= 'Z';
	}

	private static char lower(char c) {
		if (c >= 'A' && c <= 'Z') {
			return (char) (c + ('a' - 'A'));
		}
		return (c < 0x80) ? c : Character.toLowerCase(c);
	}

	private static int bucket(char first, char second) {
		return ((first * 31) + second) & (BUCKETS - 1);
	}

	private static MessageFamilies load() {
		List<Family> families = new ArrayList<>();
		for (String name : PRECEDENCE) {
			int dot = name.lastIndexOf('.');
			Outcome outcome = Outcome.valueOf(name.substring(dot + 1));
			families.add(
					new Family(name.substring(0, dot), outcome, phrases("families/" + name + ".txt"), families.size()));
		}
		return new MessageFamilies(families);
	}

	static List<String> phrases(String resource) {
		try (InputStream in = MessageFamilies.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + resource);
			}
			List<String> phrases = new ArrayList<>();
			BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				String phrase = line.strip().toLowerCase(Locale.ROOT);
				if (phrase.length() >= 2 && !phrase.startsWith("#")) {
					phrases.add(phrase);
				}
			}
			return List.copyOf(phrases);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String toString() {
		return Arrays.toString(this.families.stream().map(Family::name).toArray());
	}

}
