package io.github.llmresilience.sample.simulator;

/**
 * A request the simulated vendor cannot read, answered with its own 400.
 */
final class RejectedRequest extends RuntimeException {

	private final transient Reply reply;

	RejectedRequest(Reply reply) {
		super("Rejected: " + reply.body(), null, false, false);
		this.reply = reply;
	}

	Reply reply() {
		return this.reply;
	}

}
