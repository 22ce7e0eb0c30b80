package io.github.llmresilience.actuate;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.traffic.TrafficHistory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.util.MimeType;

/**
 * The status page: one self-contained HTML page (its CSS and script inline, nothing
 * fetched from elsewhere) and the JSON view it polls every second, {@code state}. As an
 * actuator endpoint it lives where the actuator lives (the management server, under its
 * base path), is exposed, secured and access-controlled like any other endpoint, and is
 * read-only: it has no write operation. Its path is {@code llm-resilience}
 * ({@code /actuator/llm-resilience/}) unless
 * {@code management.endpoints.web.path-mapping.llmresiliencepage} says otherwise.
 */
@WebEndpoint(id = LlmResilienceStatusPageEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class LlmResilienceStatusPageEndpoint {

	/** The endpoint's id, as exposure, access and path mapping name it. */
	public static final String ID = "llmresiliencepage";

	/** The endpoint's path under the actuator's base path, unless mapped otherwise. */
	public static final String PATH = "llm-resilience";

	/** The name of the JSON view the page polls. */
	public static final String STATE = "state";

	private static final String HTML = "text/html;charset=UTF-8";

	private static final String JSON = "application/json";

	private static final Resource PAGE = new ClassPathResource("io/github/llmresilience/actuate/status-page.html");

	private final LlmResilience resilience;

	private final @Nullable RecentStateChanges recentChanges;

	private final @Nullable TrafficHistory traffic;

	private final Supplier<StatusPageView.@Nullable Fleet> fleet;

	/**
	 * @param resilience the executor to show
	 * @param recentChanges the recent state changes, or {@code null} when none are kept
	 * @param traffic the per-second traffic, or {@code null} when none is kept
	 * @param fleet fleet mode's connection, or {@code null} where there is no fleet mode
	 */
	public LlmResilienceStatusPageEndpoint(LlmResilience resilience, @Nullable RecentStateChanges recentChanges,
			@Nullable TrafficHistory traffic, @Nullable Supplier<StatusPageView.@Nullable Fleet> fleet) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
		this.recentChanges = recentChanges;
		this.traffic = traffic;
		this.fleet = (fleet != null) ? fleet : () -> null;
	}

	/** The page, at the endpoint's path without a trailing slash. */
	@ReadOperation(produces = HTML)
	public Resource page() {
		return PAGE;
	}

	/**
	 * The page at the endpoint's path with a trailing slash, and the JSON view it draws,
	 * {@code state}, next to it.
	 * @param path what follows the endpoint's path: nothing for the page, {@code state}
	 * for the view
	 * @return the page or the view; 404 for anything else
	 */
	@ReadOperation(produces = { HTML, JSON })
	public WebEndpointResponse<Object> pageOrView(@Selector(match = Selector.Match.ALL_REMAINING) String[] path) {
		if (path.length == 0 || (path.length == 1 && path[0].isEmpty())) {
			return new WebEndpointResponse<>(PAGE, MimeType.valueOf(HTML));
		}
		if (path.length == 1 && STATE.equals(path[0])) {
			return new WebEndpointResponse<>(state(), MimeType.valueOf(JSON));
		}
		return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/** The view of the state now. */
	public StatusPageView state() {
		List<StateChange> changes = (this.recentChanges != null) ? this.recentChanges.list() : List.of();
		return StatusPageView.of(this.resilience.state(), changes, this.traffic, this.fleet.get());
	}

}
