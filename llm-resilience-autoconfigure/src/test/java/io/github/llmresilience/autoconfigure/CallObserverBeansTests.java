package io.github.llmresilience.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.target.Target;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application's {@link CallObserver} beans as a user writes them: one with a bug that
 * throws on every attempt, one that counts, called from many threads at once.
 */
class CallObserverBeansTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat[0]=primary")
		.withUserConfiguration(Observers.class);

	@Test
	void anObserverBeanThatThrowsFailsNoCallAndTheNextBeanIsStillToldFromEveryThread() throws Exception {
		this.runner.run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			ExecutorService callers = Executors.newFixedThreadPool(8);
			try {
				List<Future<String>> answers = new ArrayList<>();
				for (int i = 0; i < 400; i++) {
					answers.add(callers.submit(() -> resilience.call("chat", (attempt) -> "ok")));
				}
				for (Future<String> answer : answers) {
					assertThat(answer.get()).isEqualTo("ok");
				}
			}
			finally {
				callers.shutdownNow();
			}
			assertThat(context.getBean(Observers.class).told.sum()).isEqualTo(400);
			assertThat(resilience.isUsable("primary")).isTrue();
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Observers {

		final LongAdder told = new LongAdder();

		@Bean
		@Order(1)
		CallObserver failingObserver() {
			return new CallObserver() {

				@Override
				public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
					throw new IllegalStateException("the observer's own bug");
				}

			};
		}

		@Bean
		@Order(2)
		CallObserver countingObserver() {
			return new CallObserver() {

				@Override
				public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
					Observers.this.told.increment();
				}

			};
		}

	}

}
