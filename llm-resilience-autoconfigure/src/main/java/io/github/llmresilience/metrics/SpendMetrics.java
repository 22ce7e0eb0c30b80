package io.github.llmresilience.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.execute.Answer;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.spend.DomainSpend;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.usage.Usage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;

/**
 * What answers spent, per target ({@code llm.resilience.spend}, a counter): money at the
 * target's price ({@code unit=price}), or tokens when it has none ({@code unit=tokens}).
 * Counted whether or not the spend trigger is on; an answer without usage, or with usage
 * beyond belief, counts nothing.
 */
public class SpendMetrics implements CallObserver {

	/** What answers spent (counter). */
	public static final String SPEND = "llm.resilience.spend";

	private final MeterRegistry registry;

	private final Map<String, Price> prices;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * @param prices each priced target's price, by target name; a target without one
	 * counts tokens
	 */
	public SpendMetrics(MeterRegistry registry, Map<String, Price> prices) {
		this.registry = Objects.requireNonNull(registry, "registry");
		this.prices = Map.copyOf(prices);
	}

	@Override
	public void onAnswer(String chain, Target target, Answer answer) {
		Usage usage = answer.usage();
		if (usage == null) {
			return;
		}
		@Nullable Price price = this.prices.get(target.name());
		double spend = DomainSpend.spendOf(price, usage.inputTokens(), usage.outputTokens());
		if (spend < 0) {
			return;
		}
		this.counters.computeIfAbsent(target.name(), (name) -> {
			String unit = (price != null) ? "price" : "tokens";
			return Counter.builder(SPEND)
				.description("What answers spent: money at the target's price, or tokens without one")
				.baseUnit(unit)
				.tags(Tags.of("target", target.name(), "provider", target.provider(), "model", target.model(), "unit",
						unit))
				.register(this.registry);
		}).increment(spend);
	}

}
