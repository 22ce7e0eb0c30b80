package io.github.llmresilience.state;

import java.util.List;

/**
 * What an operator may change at runtime: the breaker of a target's failure domain, an
 * account's park or lock, a quota scope's gate, a chain's order. Every change is a state
 * change, published to the listeners like any other. Each command names what it changes
 * and throws {@link IllegalArgumentException} naming the known ones when that does not
 * exist; nothing changes then.
 */
public interface Operator {

	/**
	 * Hold the breaker of a target's failure domain open until an operator closes or
	 * resets it.
	 */
	void forceOpen(String target);

	/** Close the breaker of a target's failure domain, keeping its recorded calls. */
	void close(String target);

	/** Close the breaker of a target's failure domain and forget its recorded calls. */
	void reset(String target);

	/**
	 * Switch the breaker of a target's failure domain off: every call goes through and
	 * nothing is recorded, until {@link #close} or {@link #reset}.
	 */
	void disable(String target);

	/** End an account's park after a quota answer. */
	void unpark(String account);

	/** End an account's lock after credential errors. */
	void unlock(String account);

	/** Release a quota scope gated after a rate limit. */
	void release(String scope);

	/**
	 * Replace a chain's targets.
	 * @param chain the chain
	 * @param targets its new target names, in the order they are to be tried
	 */
	void replaceChain(String chain, List<String> targets);

}
