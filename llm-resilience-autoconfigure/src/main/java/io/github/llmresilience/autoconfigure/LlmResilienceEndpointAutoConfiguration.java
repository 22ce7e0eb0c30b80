package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.actuate.LlmResilienceChainBodyServletFilter;
import io.github.llmresilience.actuate.LlmResilienceChainBodyWebFilter;
import io.github.llmresilience.actuate.LlmResilienceEndpoint;
import io.github.llmresilience.actuate.LlmResilienceEndpointWebExtension;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.event.RecentStateChanges;
import io.github.llmresilience.execute.LlmResilience;
import jakarta.servlet.Filter;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.web.server.ConditionalOnManagementPort;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;

/**
 * Auto-configuration of the {@code llmresilience} actuator endpoint. Like every endpoint
 * it exists only when exposed ({@code management.endpoints.web.exposure.include}). It is
 * read-only by default: its write operations change how the application calls providers,
 * so they exist only with {@code management.endpoint.llmresilience.access=unrestricted}
 * (or {@code management.endpoints.access.default=unrestricted}), and then belong behind
 * the same protection as the rest of the actuator.
 *
 * <p>When the endpoint is exposed over the web, a filter lets its chain edit take a JSON
 * array ({@code {"targets": ["secondary", "primary"]}}), which Boot's endpoint handler
 * mappings refuse on their own: {@link LlmResilienceChainBodyWebFilter} in a WebFlux
 * application, {@link LlmResilienceChainBodyServletFilter} in a servlet one. It is
 * registered here when the actuator shares the application's server; with
 * {@code management.server.port} set, {@link LlmResilienceChainBodyManagementContextConfiguration}
 * registers it in the actuator's child context instead. While the endpoint is read-only
 * the filter is registered all the same but inert: it acts only on a write operation
 * Boot has mapped, so it never opens a write path of its own.
 */
@AutoConfiguration(after = { LlmResilienceAutoConfiguration.class, LlmResilienceEventsAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LlmResilience.class)
public final class LlmResilienceEndpointAutoConfiguration {

	// On the method, not the class: the class-level @ConditionalOnClass must rule first, or
	// the condition class of this annotation is loaded where Actuator is absent.
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

	/**
	 * The chain body filter, on the application's own server when the actuator shares it.
	 * {@link LlmResilienceChainBodyManagementContextConfiguration} imports the two nested
	 * configurations into the actuator's child context when it has a port of its own.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnManagementPort(ManagementPortType.SAME)
	static class ChainBodyConfiguration {

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnWebApplication(type = Type.REACTIVE)
		@ConditionalOnClass({ WebFilter.class, PathMappedEndpoints.class, JsonMapper.class })
		static class Reactive {

			@Bean
			@ConditionalOnMissingBean
			@ConditionalOnAvailableEndpoint(endpoint = LlmResilienceEndpoint.class, exposure = EndpointExposure.WEB)
			LlmResilienceChainBodyWebFilter llmResilienceChainBodyWebFilter(
					ObjectProvider<PathMappedEndpoints> endpoints) {
				return new LlmResilienceChainBodyWebFilter(endpoints::getIfAvailable);
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnWebApplication(type = Type.SERVLET)
		@ConditionalOnClass({ Filter.class, OncePerRequestFilter.class, PathMappedEndpoints.class, JsonMapper.class })
		static class Servlet {

			@Bean
			@ConditionalOnMissingBean
			@ConditionalOnAvailableEndpoint(endpoint = LlmResilienceEndpoint.class, exposure = EndpointExposure.WEB)
			LlmResilienceChainBodyServletFilter llmResilienceChainBodyServletFilter(
					ObjectProvider<PathMappedEndpoints> endpoints) {
				return new LlmResilienceChainBodyServletFilter(endpoints::getIfAvailable);
			}

		}

	}

}
