package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.actuate.LlmResilienceHealthIndicator;
import io.github.llmresilience.execute.LlmResilience;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code llmResilience} health contributor, when Actuator (its
 * health and endpoint modules) is present and
 * {@code management.health.llmresilience.enabled} is not {@code false}.
 */
@AutoConfiguration(after = LlmResilienceAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class, OperationResponseBody.class })
@ConditionalOnBean(LlmResilience.class)
@EnableConfigurationProperties(LlmResilienceHealthProperties.class)
public final class LlmResilienceHealthContributorAutoConfiguration {

	// On the method, not the class: the class-level @ConditionalOnClass must rule first,
	// or the condition class of this annotation is loaded where the health module is
	// absent.
	@Bean
	@ConditionalOnEnabledHealthIndicator("llmresilience")
	@ConditionalOnMissingBean(name = { "llmResilienceHealthIndicator", "llmResilienceHealthContributor" })
	LlmResilienceHealthIndicator llmResilienceHealthIndicator(LlmResilience resilience,
			LlmResilienceHealthProperties properties) {
		return new LlmResilienceHealthIndicator(resilience,
				properties.isDownWhenUnavailable() ? Status.DOWN : LlmResilienceHealthIndicator.DEGRADED);
	}

}
