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

	public Target {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(provider, "provider");
		account = (account == null || account.isBlank()) ? name : account;
		model = (model == null || model.isBlank()) ? "default" : model;
		region = (region == null || region.isBlank()) ? "global" : region;
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
