package io.github.llmresilience.execute;

/** Bodies the fake provider answers with. */
final class FakeProviderBodies {

	static final String OK = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
			+ "\"message\":{\"role\":\"assistant\",\"content\":\"Hello from primary\"},\"finish_reason\":\"stop\"}]}";

	static final String OK_SECONDARY = "{\"id\":\"chatcmpl-2\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
			+ "\"message\":{\"role\":\"assistant\",\"content\":\"Hello from secondary\"},\"finish_reason\":\"stop\"}]}";

	static final String SERVER_ERROR = io.github.llmresilience.execute.EngineHarness.fixture("openai-500-server-error");

	private FakeProviderBodies() {
	}

}
