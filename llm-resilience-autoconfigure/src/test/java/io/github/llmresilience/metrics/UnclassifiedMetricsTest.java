package io.github.llmresilience.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UnclassifiedMetricsTest {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final UnclassifiedMetrics metrics = new UnclassifiedMetrics(this.registry);

	@Test
	void countsByVendorStatusAndType() {
		this.metrics.unclassified("openai", 418, "teapot_error");
		this.metrics.unclassified("openai", 418, "teapot_error");
		this.metrics.unclassified("anthropic", 0, null);

		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("vendor", "openai", "status", "418", "type", "teapot_error")
			.counter()
			.count()).isEqualTo(2);
		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("vendor", "anthropic", "status", "0", "type", "none")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void aVendorInventingTypesCannotGrowTheSeriesWithoutBound() {
		for (int i = 0; i < 1000; i++) {
			this.metrics.unclassified("openai", 400, "invented_" + i);
		}
		assertThat(this.registry.find("llm.resilience.classification.unclassified").counters())
			.hasSize(UnclassifiedMetrics.MAX_SERIES + 1);
		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("vendor", "openai", "status", "400", "type", "other")
			.counter()
			.count()).isEqualTo(1000 - UnclassifiedMetrics.MAX_SERIES);
	}

}
