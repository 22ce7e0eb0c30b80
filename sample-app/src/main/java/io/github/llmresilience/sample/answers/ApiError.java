package io.github.llmresilience.sample.answers;

/**
 * The body of every error the API answers: {@code {"error": {"code", "message"}}}.
 *
 * @param error what went wrong
 */
public record ApiError(Detail error) {

	public static ApiError of(String code, String message) {
		return new ApiError(new Detail(code, message));
	}

	/**
	 * @param code a stable code a client can branch on, such as {@code ai_unavailable}
	 * @param message what happened, for people
	 */
	public record Detail(String code, String message) {

	}

}
