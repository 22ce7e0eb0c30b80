package io.github.llmresilience.target;

import java.net.URI;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One place a request can be served from.
 *
 * @param name the target's name, unique in the application
 * @param provider the provider id, which selects the error classifier
 * @param account the billing account or API project
 * @param model the model or deployment
 * @param region the region or data-center
 * @param baseUrl the API's base URL, or {@code null}
 * @param apiKey the credential, or {@code null}; its {@code toString()} hides it
 */
public record Target(String name, String provider, String account, String model, String region, @Nullable URI baseUrl,
		@Nullable Secret apiKey) {

	/**
	 * Check every name.
	 * @throws IllegalArgumentException naming the first component whose name holds a
	 * comma or a control character (see {@link #nameProblem(String)})
	 */
	public Target {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(provider, "provider");
		account = (account == null || account.isBlank()) ? name : account;
		model = (model == null || model.isBlank()) ? "default" : model;
		region = (region == null || region.isBlank()) ? "global" : region;
		requireName("name", name);
		requireName("provider", provider);
		requireName("account", account);
		requireName("model", model);
		requireName("region", region);
	}

	/**
	 * What is wrong with a target's, account's, model's, region's or chain's name, or
	 * {@code null} when nothing is. Names travel to the fleet's store and back in fields
	 * separated by tabs and line breaks, and a chain's targets by commas: a name holding
	 * one would silently split there, so none may hold a comma or a control character.
	 * @param value the name
	 */
	public static @Nullable String nameProblem(@Nullable String value) {
		if (value == null) {
			return null;
		}
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == ',' || Character.isISOControl(c)) {
				return "must not contain a comma or a control character such as a tab or a line break (the "
						+ "fleet's store separates its fields with them), was '" + printable(value) + "'";
			}
		}
		return null;
	}

	/**
	 * Refuse a name {@link #nameProblem(String)} finds wrong.
	 * @param component what the name is, for the message: {@code account}, {@code chain}
	 * @param value the name
	 * @throws IllegalArgumentException starting with the component
	 */
	public static void requireName(String component, @Nullable String value) {
		String problem = nameProblem(value);
		if (problem != null) {
			throw new IllegalArgumentException(component + " " + problem);
		}
	}

	/** The name with its control characters written as escapes, for a message. */
	private static String printable(String value) {
		StringBuilder out = new StringBuilder(value.length() + 8);
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\t' -> out.append("\\t");
				default -> {
					if (Character.isISOControl(c)) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.toString();
	}

	/** A target with only a name and a provider id, for tests and quick starts. */
	public static Target of(String name, String provider) {
		return new Target(name, provider, null, null, null, null, null);
	}

	/** The quota scope this target draws from: {@code account/model}. */
	public String quotaScope() {
		return this.account + "/" + this.model;
	}

}
