package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.actuate.LlmResilienceEndpoint;
import io.github.llmresilience.actuate.LlmResilienceEndpointWebExtension;
import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.execute.LlmResilience;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code llmresilience} actuator endpoint. Like every endpoint
 * it exists only when exposed ({@code management.endpoints.web.exposure.include}). It is
 * read-only by default: its write operations change how the application calls providers,
 * so they exist only with {@code management.endpoint.llmresilience.access=unrestricted}
 * (or {@code management.endpoints.access.default=unrestricted}), and then belong behind
 * the same protection as the rest of the actuator.
 */
@AutoConfiguration(after = { LlmResilienceAutoConfiguration.class, LlmResilienceEventsAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LlmResilience.class)
public final class LlmResilienceEndpointAutoConfiguration {

	// On the method, not the class: the class-level @ConditionalOnClass must rule first,
	// or the condition class of this annotation is loaded where Actuator is absent.
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(LlmResilienceEndpoint.class)
	LlmResilienceEndpoint llmResilienceEndpoint(LlmResilience resilience,
			ObjectProvider<RecentStateChanges> recentChanges, ObjectProvider<RecentUnclassified> recentUnclassified) {
		return new LlmResilienceEndpoint(resilience, recentChanges.getIfAvailable(),
				recentUnclassified.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(LlmResilienceEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	LlmResilienceEndpointWebExtension llmResilienceEndpointWebExtension(LlmResilienceEndpoint endpoint) {
		return new LlmResilienceEndpointWebExtension(endpoint);
	}

}
