package io.github.llmresilience.target;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A credential that never shows itself: {@link #toString()} hides it, so it cannot leak
 * into a log line, a health detail or an exception message by accident.
 */
public final class Secret {

	private final String value;

	private Secret(String value) {
		this.value = value;
	}

	/**
	 * @param value the credential, or {@code null}
	 * @return the secret, or {@code null} when the value is {@code null} or blank
	 */
	public static @Nullable Secret of(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : new Secret(value);
	}

	/** The credential itself, for the one place that sends it to the provider. */
	public String reveal() {
		return this.value;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof Secret that && Objects.equals(this.value, that.value);
	}

	@Override
	public int hashCode() {
		return this.value.hashCode();
	}

	@Override
	public String toString() {
		return "******";
	}

}
