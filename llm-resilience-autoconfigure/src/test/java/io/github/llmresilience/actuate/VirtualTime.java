package io.github.llmresilience.actuate;

import io.github.llmresilience.test.ManualTime;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Virtual time for an actuator test's application (open breakers, gates, parks, traffic
 * seconds expire when the test moves it); without it the application runs on the system
 * clock. Not nested in {@link ActuatorTestApplication}: a configuration class's nested
 * configuration is always registered with it.
 */
@TestConfiguration(proxyBeanMethods = false)
class VirtualTime {

	@Bean
	ManualTime llmResilienceClock() {
		return new ManualTime();
	}

}
