package io.github.llmresilience.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UnclassifiedMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final UnclassifiedMetrics metrics = new UnclassifiedMetrics(this.registry);

	@Test
	void countsByVendorStatusAndType() {
		this.metrics.unclassified("openai", 418, "teapot_error");
		this.metrics.unclassified("openai", 418, "teapot_error");
		this.metrics.unclassified("anthropic", 0, null);

		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("provider", "openai", "status", "418", "type", "teapot_error")
			.counter()
			.count()).isEqualTo(2);
		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("provider", "anthropic", "status", "0", "type", "none")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void aVendorInventingTypesAndStatusesIsHeldToTheLimitAndEveryErrorIsCounted() {
		// Before: past the limit, each new status opened an "other" series of its own.
		for (int i = 0; i < 1000; i++) {
			this.metrics.unclassified("openai-compatible", 400 + (i % 200), "invented_" + i);
		}
		assertThat(series()).hasSizeLessThanOrEqualTo(UnclassifiedMetrics.MAX_SERIES + 1);
		assertThat(total()).isEqualTo(1000);
		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("provider", "openai-compatible", "status", "other", "type", "other")
			.counter()
			.count()).isEqualTo(1000 - UnclassifiedMetrics.MAX_SERIES);
	}

	@Test
	void theCallersOwnExceptionsByClassNameAreHeldToTheSameLimit() {
		// Status 0 and an exception's simple class name, as the executor reports an
		// exception no extractor recognises; one class has no simple name at all.
		for (int i = 0; i < 1000; i++) {
			this.metrics.unclassified("openai", 0, "GeneratedMappingException" + i);
		}
		this.metrics.unclassified("openai", 0, new RuntimeException() {
		}.getClass().getSimpleName());
		assertThat(series()).hasSizeLessThanOrEqualTo(UnclassifiedMetrics.MAX_SERIES + 1);
		assertThat(total()).isEqualTo(1001);
		assertThat(series()).allSatisfy((counter) -> assertThat(counter.getId().getTag("type")).isNotEmpty());
	}

	@Test
	void concurrentNewSeriesCannotPassTheLimitTogether() throws InterruptedException {
		int threads = 8;
		int each = 500;
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> started = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			Thread worker = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				for (int i = 0; i < each; i++) {
					this.metrics.unclassified("openai", 500, "t" + thread + "_" + i);
				}
			});
			worker.start();
			started.add(worker);
		}
		start.countDown();
		for (Thread worker : started) {
			worker.join();
		}
		assertThat(series()).hasSize(UnclassifiedMetrics.MAX_SERIES + 1);
		assertThat(total()).isEqualTo(threads * each);
	}

	private Collection<Counter> series() {
		return this.registry.find("llm.resilience.classification.unclassified").counters();
	}

	private double total() {
		return series().stream().mapToDouble(Counter::count).sum();
	}

	@Test
	void aVendorInventingTypesCannotGrowTheSeriesWithoutBound() {
		for (int i = 0; i < 1000; i++) {
			this.metrics.unclassified("openai", 400, "invented_" + i);
		}
		assertThat(this.registry.find("llm.resilience.classification.unclassified").counters())
			.hasSize(UnclassifiedMetrics.MAX_SERIES + 1);
		assertThat(this.registry.get("llm.resilience.classification.unclassified")
			.tags("provider", "openai", "status", "other", "type", "other")
			.counter()
			.count()).isEqualTo(1000 - UnclassifiedMetrics.MAX_SERIES);
	}

}
