package io.github.llmresilience.spend;

import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.change.StateChanges;
import org.jspecify.annotations.Nullable;

/**
 * The spend of every failure domain, one {@link DomainSpend} each, keyed like the
 * breakers.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Spend {

	private final SpendSettings settings;

	private final Clock clock;

	private final StateChanges events;

	private final Map<String, DomainSpend> byDomain = new ConcurrentHashMap<>();

	public Spend(SpendSettings settings, Clock clock, StateChanges events) {
		this.settings = settings;
		this.clock = clock;
		this.events = events;
	}

	public SpendSettings settings() {
		return this.settings;
	}

	/**
	 * The spend of a failure domain, made on first use.
	 * @param breaker the domain's breaker, which a runaway opens
	 * @param price what the target's tokens cost, or {@code null} to count tokens
	 * @throws IllegalArgumentException when the domain exists with another price (a
	 * domain's spend per call must be in one unit)
	 */
	public DomainSpend forDomain(Breaker breaker, @Nullable Price price) {
		DomainSpend spend = this.byDomain.computeIfAbsent(breaker.domain(),
				(domain) -> new DomainSpend(domain, price, this.settings, this.clock, this.events, breaker));
		if (!Objects.equals(spend.price(), price)) {
			throw new IllegalArgumentException("Failure domain '" + breaker.domain()
					+ "' is shared by targets with different prices: " + spend.price() + " and " + price);
		}
		return spend;
	}

	/** The spend of a failure domain, or {@code null} when no target has it. */
	public @Nullable DomainSpend get(String domain) {
		return this.byDomain.get(domain);
	}

	public Collection<DomainSpend> all() {
		return this.byDomain.values();
	}

}
