package io.github.llmresilience.sample.simulator;

import java.time.Clock;

import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.http.codec.CodecCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.server.HandlerStrategies;

/**
 * The provider simulator, unless {@code sample.simulator.enabled=false}. It shares the
 * application's {@link Clock} (the one llm-resilience uses), so that a test that moves
 * time moves it for both; latencies run on a Reactor {@link Scheduler} bean when there is
 * one, else on the parallel scheduler.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SimulatorProperties.class)
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
class SimulatorConfiguration {

	@Bean
	SimulatedProviders simulatedProviders(SimulatorProperties properties, Clock clock) {
		return new SimulatedProviders(clock, properties.getTargets(), properties.getRateLimits());
	}

	@Bean
	ProviderSimulator providerSimulator(SimulatedProviders providers, SimulatorProperties properties, JsonMapper json,
			ObjectProvider<CodecCustomizer> codecs, Clock clock, ObjectProvider<Scheduler> scheduler) {
		// The same codecs as the application's own server, so JSON looks the same on
		// both.
		HandlerStrategies strategies = HandlerStrategies.builder()
			.codecs((configurer) -> codecs.orderedStream().forEach((codec) -> codec.customize(configurer)))
			.build();
		return new ProviderSimulator(providers, properties, json, strategies, clock,
				scheduler.getIfAvailable(Schedulers::parallel));
	}

}
