package io.github.llmresilience.classify.vendor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SseEventsTests {

	@Test
	void splitsEventsAndJoinsDataLines() {
		var events = SseEvents.parse(": comment\nevent: error\ndata: {\"a\":\ndata: 1}\n\ndata: [DONE]\n\n");
		assertThat(events).containsExactly(new SseEvents.Event("error", "{\"a\":\n1}"),
				new SseEvents.Event(null, "[DONE]"));
	}

	@Test
	void carriageReturnLineFeedAndAMissingFinalBlankLine() {
		var events = SseEvents.parse("data: one\r\n\r\ndata:two");
		assertThat(events).containsExactly(new SseEvents.Event(null, "one"), new SseEvents.Event(null, "two"));
	}

}
