package io.github.llmresilience.data.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.actuate.LlmResilienceHealthIndicator;
import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceFleetAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceHealthContributorAutoConfiguration;
import io.github.llmresilience.execute.LlmResilience;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Pods of a {@link FleetPods} fleet that are Spring Boot applications: each its own
 * context with the auto-configuration, fleet mode on and its connection made by Boot from
 * {@code spring.data.redis.*} (standalone, Sentinel or Cluster settings), on the fleet's
 * provider and namespace.
 */
final class BootPods implements AutoCloseable {

	private final FleetPods fleet;

	private final List<String> common;

	private final Map<String, ConfigurableApplicationContext> contexts = new ConcurrentHashMap<>();

	/**
	 * @param fleet the provider and namespace
	 * @param properties the Redis settings and any other, {@code name=value}
	 */
	BootPods(FleetPods fleet, String... properties) {
		this.fleet = fleet;
		this.common = new ArrayList<>(
				List.of("llm.resilience.fleet.enabled=true", "llm.resilience.fleet.namespace=" + fleet.namespace,
						"llm.resilience.fleet.sync-interval=100ms", "llm.resilience.fleet.window=5s",
						"llm.resilience.fleet.command-timeout=300ms", "llm.resilience.fleet.gate-jitter=0ms",
						"llm.resilience.fleet.probe-lease=5s", "llm.resilience.breaker.minimum-calls=5",
						"llm.resilience.breaker.open-duration=1s", "llm.resilience.breaker.open-duration-max=2s",
						"llm.resilience.retry.max-attempts=1", "llm.resilience.chains.chat[0]=primary",
						"llm.resilience.chains.chat[1]=secondary", "spring.data.redis.timeout=5s"));
		for (String target : List.of("primary", "secondary")) {
			String prefix = "llm.resilience.targets." + target + ".";
			this.common
				.addAll(List.of(prefix + "provider=openai", prefix + "account=acct-" + target, prefix + "model=gpt-4o",
						prefix + "region=region-" + target, prefix + "base-url=" + fleet.provider.baseUrl(target)));
		}
		this.common.addAll(List.of(properties));
	}

	/** Start a pod; its calls go through {@link FleetPods#call(FleetPods.Pod)}. */
	FleetPods.Pod start(String id) {
		List<String> properties = new ArrayList<>(this.common);
		properties.add("llm.resilience.fleet.pod=" + id);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(PodApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.registerShutdownHook(false)
			.properties(properties.toArray(String[]::new))
			.run();
		this.contexts.put(id, context);
		return new FleetPods.Pod(id, context.getBean(LlmResilience.class), null);
	}

	/** The pod's {@code llmResilience} health component. */
	Health health(FleetPods.Pod pod) {
		return this.contexts.get(pod.id()).getBean(LlmResilienceHealthIndicator.class).health();
	}

	@Override
	public void close() {
		this.contexts.values().forEach(ConfigurableApplicationContext::close);
		this.contexts.clear();
	}

	/** A pod: the auto-configuration of Spring Data Redis and of llm-resilience. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class,
			LlmResilienceFleetAutoConfiguration.class, LlmResilienceAutoConfiguration.class,
			LlmResilienceHealthContributorAutoConfiguration.class })
	static class PodApplication {

	}

}
