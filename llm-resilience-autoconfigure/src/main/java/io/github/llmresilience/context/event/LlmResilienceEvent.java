package io.github.llmresilience.context.event;

import java.time.Instant;

import io.github.llmresilience.change.StateChange;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEvent;

/**
 * A llm-resilience {@link StateChange} as a Spring {@link ApplicationEvent}, so that an
 * application can react with an {@code @EventListener}: page someone when an account is
 * parked, post to a channel when a breaker opens. Listen to this type for every change,
 * or to one subtype.
 *
 * <p>
 * Events are published synchronously on the thread that caused the change, often a call's
 * own thread: a listener must be quick, and should hand slow work (an HTTP call to a
 * pager) to another thread.
 */
public abstract class LlmResilienceEvent extends ApplicationEvent {

	private final transient StateChange change;

	protected LlmResilienceEvent(StateChange change) {
		super(change);
		this.change = change;
	}

	/** The event for a change: the subtype that matches its kind. */
	public static LlmResilienceEvent of(StateChange change) {
		return switch (change.kind()) {
			case BREAKER_OPENED, BREAKER_HALF_OPEN, BREAKER_CLOSED, BREAKER_FORCED_OPEN, BREAKER_DISABLED,
					BREAKER_RESET ->
				new BreakerTransitionEvent(change);
			case SCOPE_GATED -> new ScopeGatedEvent(change);
			case SCOPE_UNGATED -> new ScopeReleasedEvent(change);
			case ACCOUNT_PARKED -> new AccountParkedEvent(change);
			case ACCOUNT_LOCKED -> new AccountLockedEvent(change);
			case ACCOUNT_UNPARKED, ACCOUNT_UNLOCKED -> new AccountReleasedEvent(change);
			case CHAIN_EDITED -> new ChainEditedEvent(change);
			case FLEET_CONNECTED, FLEET_DISCONNECTED, FLEET_STATE_LOST -> new FleetConnectionEvent(change);
			case PROVIDER_OVERLOADED -> new ProviderOverloadedEvent(change);
			case CLASSIFICATION_RULES_EDITED -> new ClassificationRulesEditedEvent(change);
			case POOL_CAPACITY_CHANGED -> new PoolCapacityChangedEvent(change);
			case SPEND_ALERT, SPEND_TRIPPED, SPEND_NORMAL, SPEND_LEVEL_ADOPTED -> new SpendEvent(change);
			case CANARY_WITHDRAWN -> new CanaryWithdrawnEvent(change);
			case CONCURRENCY_LIMIT_HALVED, CLIENT_THROTTLING_STARTED, CLIENT_THROTTLING_STOPPED ->
				new OverloadControlEvent(change);
		};
	}

	/** The change itself. */
	public StateChange getChange() {
		return this.change;
	}

	public StateChange.Kind getKind() {
		return this.change.kind();
	}

	/** What changed: a failure domain, a quota scope, an account or a chain. */
	public String getSubject() {
		return this.change.subject();
	}

	/** Why, in a few words; never a secret. */
	public String getDetail() {
		return this.change.detail();
	}

	/**
	 * When the subject may serve again, or {@code null} when it may now or it is not
	 * known.
	 */
	public @Nullable Instant getUntil() {
		return this.change.until();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.change.kind().tag() + " " + this.change.subject()
				+ (this.change.detail().isEmpty() ? "" : ": " + this.change.detail()) + "]";
	}

}
