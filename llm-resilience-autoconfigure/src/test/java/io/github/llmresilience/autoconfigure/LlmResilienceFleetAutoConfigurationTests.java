package io.github.llmresilience.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.github.llmresilience.actuate.LlmResilienceEndpoint;
import io.github.llmresilience.actuate.LlmResilienceHealthIndicator;
import io.github.llmresilience.data.redis.RedisFleetStore;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.metrics.LlmResilienceStateMetrics;
import io.github.llmresilience.test.LocalRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LlmResilienceFleetAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DataRedisReactiveAutoConfiguration.class, LlmResilienceFleetAutoConfiguration.class,
				LlmResilienceAutoConfiguration.class, LlmResilienceHealthContributorAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat[0]=primary");

	@Test
	void fleetModeIsOffByDefault() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(FleetStore.class);
			assertThat(context.getBean(LlmResilience.class).fleet().enabled()).isFalse();
			Health health = context.getBean(LlmResilienceHealthIndicator.class).health();
			assertThat(health.getDetails()).doesNotContainKey("fleet");
			assertThat(new LlmResilienceEndpoint(context.getBean(LlmResilience.class), null, null).resilience().fleet())
				.isNull();
		});
	}

	@Test
	void fleetModeOnRedisSharesStateUnderTheApplicationsName() {
		String name = "fleet-" + UUID.randomUUID().toString().substring(0, 8);
		this.runner
			.withPropertyValues("llm.resilience.fleet.enabled=true", "spring.application.name=" + name,
					"spring.data.redis.url=" + ciRedis())
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisFleetStore.class);
				assertThat(context.getBean(RedisFleetStore.class).prefix()).isEqualTo("llm-resilience:{" + name + "}:");
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(resilience.fleet().enabled()).isTrue();
				// A cold connection may take longer than the start waits: the fleet's
				// thread connects.
				await().atMost(Duration.ofSeconds(10)).until(() -> resilience.fleet().connected());
				assertThat(resilience.fleet().namespace()).isEqualTo(name);
				Health health = context.getBean(LlmResilienceHealthIndicator.class).health();
				assertThat(health.getDetails().get("fleet")).asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsEntry("status", "connected")
					.containsEntry("namespace", name);
				assertThat(new LlmResilienceEndpoint(resilience, null, null).resilience().fleet())
					.satisfies((fleet) -> assertThat(fleet.connected()).isTrue());
			});
	}

	@Test
	void theNamespaceAndPodMayBeSet() {
		this.runner
			.withPropertyValues("llm.resilience.fleet.enabled=true", "llm.resilience.fleet.namespace=orders",
					"llm.resilience.fleet.pod=orders-7", "spring.data.redis.url=" + ciRedis())
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(resilience.fleet().namespace()).isEqualTo("orders");
				assertThat(resilience.fleet().pod()).isEqualTo("orders-7");
			});
	}

	@Test
	void fleetModeWithoutSpringDataRedisFailsNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.fleet.enabled=true")
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("llm.resilience.fleet.enabled")
				.hasMessageContaining("spring-boot-starter-data-redis-reactive"));
	}

	@Test
	void anOutOfRangeSyncIntervalFailsNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.fleet.enabled=true", "llm.resilience.fleet.sync-interval=2m")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("llm.resilience.fleet.sync-interval")
				.hasMessageContaining("PT1M"));
	}

	@Test
	void aWindowShorterThanTheSyncIntervalFailsNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.fleet.sync-interval=5s", "llm.resilience.fleet.window=2s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("llm.resilience.fleet.window"));
	}

	@Test
	void aStoreThatThrowsLeavesThePodDecidingAloneAndUp() {
		this.runner.withPropertyValues("llm.resilience.fleet.enabled=true")
			.withUserConfiguration(ThrowingStoreConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(resilience.fleet().enabled()).isTrue();
				assertThat(resilience.fleet().connected()).isFalse();
				assertThat(resilience.isUsable("primary")).isTrue();
				Health health = context.getBean(LlmResilienceHealthIndicator.class).health();
				assertThat(health.getStatus().getCode()).isEqualTo("UP");
				assertThat(health.getDetails().get("fleet")).asInstanceOf(InstanceOfAssertFactories.MAP)
					.containsEntry("status", "disconnected");
			});
	}

	@Test
	void theConnectedGaugeFollowsTheStore() {
		this.runner.withPropertyValues("llm.resilience.fleet.enabled=true")
			.withUserConfiguration(ThrowingStoreConfiguration.class)
			.run((context) -> {
				SimpleMeterRegistry registry = new SimpleMeterRegistry();
				new LlmResilienceStateMetrics(context.getBean(LlmResilience.class)).bindTo(registry);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> registry.get(LlmResilienceStateMetrics.FLEET_CONNECTED).gauge().value() == 0);
			});
	}

	static String ciRedis() {
		return LocalRedis.ciRedis().toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class ThrowingStoreConfiguration {

		@Bean
		FleetStore throwingFleetStore() {
			return new FleetStore() {

				@Override
				public CompletableFuture<View> sync(Sync sync) {
					throw new IllegalStateException("the user's store broke");
				}

				@Override
				public void listen(Runnable hint) {
					throw new IllegalStateException("the user's store broke");
				}

				@Override
				public void close() {
				}

			};
		}

	}

}
