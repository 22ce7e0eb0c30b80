package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.StringJoiner;

import io.github.llmresilience.actuate.LlmResilienceStatusPageEndpoint;
import io.github.llmresilience.actuate.StatusPageView;
import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.traffic.TrafficHistory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.web.PathMapper;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the status page, with
 * {@code llm.resilience.status-page.enabled=true}: the {@code llmresiliencepage}
 * endpoint, at {@code llm-resilience} under the actuator's base path, and the in-memory
 * per-second traffic it charts. Like every endpoint it is served only when exposed
 * ({@code management.endpoints.web.exposure.include}), on the management server when
 * there is one.
 */
@AutoConfiguration(after = { LlmResilienceAutoConfiguration.class, LlmResilienceEventsAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LlmResilience.class)
@ConditionalOnBooleanProperty("llm.resilience.status-page.enabled")
@EnableConfigurationProperties(LlmResilienceStatusPageProperties.class)
public final class LlmResilienceStatusPageAutoConfiguration {

	/** How far back the page's traffic chart reaches. */
	static final Duration TRAFFIC_SPAN = Duration.ofMinutes(5);

	/**
	 * A {@link io.github.llmresilience.execute.CallObserver}: the executor collects it
	 * with the other observer beans.
	 */
	@Bean
	@ConditionalOnMissingBean
	TrafficHistory llmResilienceTrafficHistory(Clock clock) {
		return new TrafficHistory(clock, TRAFFIC_SPAN);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(LlmResilienceStatusPageEndpoint.class)
	LlmResilienceStatusPageEndpoint llmResilienceStatusPageEndpoint(LlmResilience resilience,
			ObjectProvider<RecentStateChanges> recentChanges, ObjectProvider<TrafficHistory> traffic) {
		return new LlmResilienceStatusPageEndpoint(resilience, recentChanges.getIfAvailable(), traffic.getIfAvailable(),
				() -> fleet(resilience.fleet()));
	}

	/**
	 * Fleet mode's panel: connected or not, and which pod probes which failure domain.
	 */
	static StatusPageView.@Nullable Fleet fleet(FleetState fleet) {
		if (!fleet.enabled()) {
			return null;
		}
		StringJoiner probers = new StringJoiner(", ");
		fleet.domains().forEach((domain, state) -> {
			if (!state.prober().isEmpty()) {
				probers.add(state.prober() + " (" + domain + ")");
			}
		});
		return new StatusPageView.Fleet(fleet.connected(), (probers.length() > 0) ? probers.toString() : null);
	}

	/**
	 * Maps the endpoint to {@code llm-resilience} (an endpoint id cannot carry the dash
	 * without a warning), unless
	 * {@code management.endpoints.web.path-mapping.llmresiliencepage} maps it elsewhere.
	 */
	@Bean
	PathMapper llmResilienceStatusPagePathMapper(Environment environment) {
		EndpointId id = EndpointId.of(LlmResilienceStatusPageEndpoint.ID);
		boolean mapped = environment
			.containsProperty("management.endpoints.web.path-mapping." + LlmResilienceStatusPageEndpoint.ID);
		return (endpointId) -> (!mapped && id.equals(endpointId)) ? LlmResilienceStatusPageEndpoint.PATH : null;
	}

}
