package io.github.llmresilience.execute;

import reactor.util.context.Context;

/**
 * Engine-facing: makes an attempt's trace current on the thread that opens it, until
 * closed, so that a provider client's own observation (Spring AI's
 * {@code gen_ai.client.operation}, a {@code RestClient}'s) started within becomes the
 * attempt's child.
 */
@FunctionalInterface
public interface AttemptScope {

	/** No trace: opening it does nothing. */
	AttemptScope NONE = () -> Opened.NOTHING;

	/** Make the attempt's trace current on this thread. */
	Opened open();

	/**
	 * The attempt's trace in the Reactor context of its call function's publisher, where
	 * reactive clients look for their parent (a {@code WebClient}'s exchange does).
	 */
	default Context inReactor(Context context) {
		return context;
	}

	/** An opened scope; closed on the thread that opened it. */
	@FunctionalInterface
	interface Opened extends AutoCloseable {

		/** Nothing was opened. */
		Opened NOTHING = () -> {
		};

		@Override
		void close();

	}

}
