package io.github.llmresilience.settings;

import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * A settings record's component out of its range, as its constructor reports it: which
 * component, what it must be (possibly compared with another component) and the value
 * found. The message reads as before ({@code maxAttempts must be between 1 and 10, was
 * 0}); the parts let a caller that knows where each component came from (a property, an
 * endpoint's field) name it there without reading the message, the way Resilience4j's
 * configurations name the setting they refuse.
 */
public class InvalidSettingException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final String setting;

	private final String requirement;

	private final @Nullable String comparedWith;

	private final @Nullable String comparedValue;

	private final String value;

	/**
	 * A component out of a range of its own.
	 * @param setting the component's name, such as {@code maxAttempts}
	 * @param requirement what it must be, such as {@code must be between 1 and 10}
	 * @param value the value found, as it should be shown
	 */
	public InvalidSettingException(String setting, String requirement, @Nullable Object value) {
		this(setting, requirement, null, null, value);
	}

	/**
	 * A component out of its range relative to another component.
	 * @param setting the component's name, such as {@code backoffMax}
	 * @param requirement what it must be, up to the other component's name, such as
	 * {@code must be at least}
	 * @param comparedWith the other component's name, such as {@code backoffBase}
	 * @param comparedValue the other component's value
	 * @param value the value found, as it should be shown
	 */
	public InvalidSettingException(String setting, String requirement, @Nullable String comparedWith,
			@Nullable Object comparedValue, @Nullable Object value) {
		super(setting + " " + requirement(requirement, comparedWith, String.valueOf(comparedValue), (name) -> name)
				+ ", was " + value);
		this.setting = setting;
		this.requirement = requirement;
		this.comparedWith = comparedWith;
		this.comparedValue = (comparedWith != null) ? String.valueOf(comparedValue) : null;
		this.value = String.valueOf(value);
	}

	/** The rejected component's name. */
	public String setting() {
		return this.setting;
	}

	/** The value found, as text. */
	public String value() {
		return this.value;
	}

	/**
	 * What the component must be, with a compared component named as the caller names it:
	 * {@code must be at least llm.resilience.retry.backoff-base (PT0.5S)}.
	 * @param nameOf the caller's name of each component, by the component's name
	 * @return the requirement
	 */
	public String requirement(Function<String, String> nameOf) {
		return requirement(this.requirement, this.comparedWith, this.comparedValue, nameOf);
	}

	private static String requirement(String requirement, @Nullable String comparedWith, @Nullable String comparedValue,
			Function<String, String> nameOf) {
		return (comparedWith != null) ? requirement + " " + nameOf.apply(comparedWith) + " (" + comparedValue + ")"
				: requirement;
	}

}
