package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.execute.LlmResilience;

import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Import;

/**
 * The chain body filter in the actuator's child context, which Boot creates when
 * {@code management.server.port} differs from the application's and which has a web
 * server of its own; {@link LlmResilienceEndpointAutoConfiguration} then registers none
 * in the application's context, where the actuator is not served. The same conditions as
 * on a shared server apply: the web application type, Jackson 3, the endpoint exposed
 * over the web, and no bean of the filter's type in this context or the application's.
 *
 * @see LlmResilienceEndpointAutoConfiguration
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(LlmResilience.class)
@Import({ LlmResilienceEndpointAutoConfiguration.ChainBodyConfiguration.Reactive.class,
		LlmResilienceEndpointAutoConfiguration.ChainBodyConfiguration.Servlet.class })
final class LlmResilienceChainBodyManagementContextConfiguration {

}
