package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.data.redis.RedisFleetStore;
import io.github.llmresilience.data.redis.RedisLeaseStore;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.pool.LeaseStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

/**
 * Fleet mode on Redis ({@code llm.resilience.fleet.enabled=true}): a
 * {@link RedisFleetStore} on the connection Boot's {@code spring.data.redis.*} made, so
 * Standalone, Sentinel and Cluster all work as the application configured them. The
 * {@link io.github.llmresilience.execute.LlmResilience} bean picks it up.
 */
@AutoConfiguration(before = LlmResilienceAutoConfiguration.class,
		afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration")
@ConditionalOnClass({ ReactiveStringRedisTemplate.class, ReactiveRedisConnectionFactory.class })
@ConditionalOnProperty(prefix = "llm.resilience.fleet", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(LlmResilienceProperties.class)
public final class LlmResilienceFleetAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(FleetStore.class)
	RedisFleetStore llmResilienceFleetStore(LlmResilienceProperties properties, Environment environment,
			ObjectProvider<PropertiesSettings> settings,
			ObjectProvider<ReactiveRedisConnectionFactory> connectionFactory) {
		ReactiveRedisConnectionFactory factory = connectionFactory.getIfAvailable();
		if (factory == null) {
			throw LlmResilienceAutoConfiguration.fleetNeedsStore();
		}
		// The settings bean is missing only when llm.resilience.enabled is false.
		FleetSettings fleet = settings
			.getIfAvailable(() -> PropertiesSettings.of(properties, environment.getProperty("spring.application.name")))
			.fleet();
		return new RedisFleetStore(new ReactiveStringRedisTemplate(factory), fleet.namespace());
	}

	@Bean
	@ConditionalOnMissingBean(LeaseStore.class)
	@ConditionalOnProperty(prefix = "llm.resilience.pools.fleet-leases", name = "enabled", havingValue = "true")
	RedisLeaseStore llmResilienceLeaseStore(LlmResilienceProperties properties, Environment environment,
			ObjectProvider<PropertiesSettings> settings,
			ObjectProvider<ReactiveRedisConnectionFactory> connectionFactory) {
		ReactiveRedisConnectionFactory factory = connectionFactory.getIfAvailable();
		if (factory == null) {
			throw LlmResilienceAutoConfiguration.fleetNeedsStore();
		}
		FleetSettings fleet = settings
			.getIfAvailable(() -> PropertiesSettings.of(properties, environment.getProperty("spring.application.name")))
			.fleet();
		return new RedisLeaseStore(new ReactiveStringRedisTemplate(factory), fleet.namespace());
	}

}
