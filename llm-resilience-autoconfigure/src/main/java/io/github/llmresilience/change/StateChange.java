package io.github.llmresilience.change;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One change of state: a breaker transition, a gated quota scope, a parked or locked
 * account, a chain edit, the fleet's store lost or found again, a domain's spend running
 * away, a domain's canary withdrawn. Every change is logged once, counted, kept in the
 * recent-events list and handed to every {@link StateChangeListener}.
 *
 * @param at when it happened
 * @param kind what happened
 * @param subject what it happened to: a failure domain, a quota scope, an account, a
 * chain, a provider id, {@code classification.rules}, or the fleet's namespace
 * @param detail why, in a few words (never a secret)
 * @param until when the subject may serve again, or {@code null} when it is usable now or
 * not known
 */
public record StateChange(Instant at, Kind kind, String subject, String detail, @Nullable Instant until) {

	public StateChange {
		Objects.requireNonNull(at, "at");
		Objects.requireNonNull(kind, "kind");
		Objects.requireNonNull(subject, "subject");
		detail = (detail != null) ? detail : "";
	}

	/** The kinds of change. */
	public enum Kind {

		BREAKER_OPENED(true), BREAKER_HALF_OPEN(false), BREAKER_CLOSED(false), BREAKER_FORCED_OPEN(true),
		BREAKER_DISABLED(false), BREAKER_RESET(false), SCOPE_GATED(true), SCOPE_UNGATED(false), ACCOUNT_PARKED(true),
		ACCOUNT_UNPARKED(false), ACCOUNT_LOCKED(true), ACCOUNT_UNLOCKED(false), CHAIN_EDITED(false),
		/** This pod reached the fleet's store (at start-up, or again after losing it). */
		FLEET_CONNECTED(false),
		/** This pod lost the fleet's store: it decides alone until it is back. */
		FLEET_DISCONNECTED(false, true),
		/**
		 * The fleet's store lost its state (an empty restart, {@code FLUSHALL},
		 * eviction): this pod publishes what it holds again rather than follow the
		 * emptied store (logged as a warning).
		 */
		FLEET_STATE_LOST(false, true),
		/**
		 * A provider answered that its whole fleet is overloaded: until {@code until},
		 * chains try its targets after every other provider's (logged as a warning; its
		 * targets stay in service).
		 */
		PROVIDER_OVERLOADED(true),
		/** A user's classification rule was added, replaced or removed. */
		CLASSIFICATION_RULES_EDITED(false),
		/**
		 * A quota scope's capacity was learned from the provider's rate-limit headers, or
		 * changed: its pools' shares follow.
		 */
		POOL_CAPACITY_CHANGED(false),
		/**
		 * A failure domain's spend per call reached {@code spend.alert-multiple} times
		 * its trailing median (logged as a warning; the domain stays in service).
		 */
		SPEND_ALERT(false, true),
		/**
		 * A failure domain's spend per call reached {@code spend.open-multiple} times its
		 * trailing median: its breaker opens (a {@code breaker-opened} follows).
		 */
		SPEND_TRIPPED(true),
		/**
		 * A failure domain's spend per call is back below the alert for a whole window.
		 */
		SPEND_NORMAL(false),
		/**
		 * A failure domain's canary was refused for its own request ({@code REQUEST} or
		 * {@code CONTENT_FILTER}: a prompt, model or parameter the provider will not
		 * take): it stops, and calls are the domain's half-open trials from now on
		 * (logged as a warning; the domain's state does not change).
		 */
		CANARY_WITHDRAWN(false, true),
		/**
		 * A failure domain's tripped spend per call held, steady, for
		 * {@code spend.adopt-after} whole windows: it is adopted as the domain's new
		 * normal, and the breaker's trials pass again (logged as a warning: the bill
		 * stays at the new level).
		 */
		SPEND_LEVEL_ADOPTED(false, true),
		/**
		 * A failure domain's adaptive limit on calls in flight fell to half of its peak
		 * (logged as a warning: the domain is queueing or failing under load; calls over
		 * the limit go to other targets). Told again only after the limit has climbed
		 * back to that peak.
		 */
		CONCURRENCY_LIMIT_HALVED(false, true),
		/**
		 * A provider account refuses more than it accepts: requests to it are refused
		 * here with the client-side throttling probability, background first (logged as a
		 * warning).
		 */
		CLIENT_THROTTLING_STARTED(false, true),
		/** A provider account accepts again: no request to it is refused here. */
		CLIENT_THROTTLING_STOPPED(false);

		private final boolean makesUnusable;

		private final boolean warns;

		Kind(boolean makesUnusable) {
			this(makesUnusable, makesUnusable);
		}

		Kind(boolean makesUnusable, boolean warns) {
			this.makesUnusable = makesUnusable;
			this.warns = warns;
		}

		/** Whether this change takes a target out of service. */
		public boolean makesUnusable() {
			return this.makesUnusable;
		}

		/** Whether this change is logged as a warning. */
		public boolean warns() {
			return this.warns;
		}

		/** The name as used in metric tags and JSON: {@code breaker-opened}. */
		public String tag() {
			return name().toLowerCase(Locale.ROOT).replace('_', '-');
		}

	}

}
