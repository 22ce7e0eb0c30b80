package io.github.llmresilience.overload;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.overload.internal.DomainLimit;
import io.github.llmresilience.overload.internal.ProviderThrottle;
import io.github.llmresilience.overload.internal.TargetAdmission;
import io.github.llmresilience.target.Target;

/**
 * Overload control: an adaptive limit on calls in flight per failure domain, and
 * client-side throttling per provider account. Each target gets an {@link Admission} that
 * its domain's and its account's targets share. Limits halving and throttling starting
 * and stopping are state changes; the limit's other moves are not.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class OverloadControl {

	private final ConcurrencySettings concurrency;

	private final ClientThrottlingSettings throttling;

	private final LongSupplier nanoTime;

	private final DoubleSupplier random;

	private final StateChanges events;

	private final Map<String, DomainLimit> limits = new ConcurrentHashMap<>();

	private final Map<String, ProviderThrottle> throttles = new ConcurrentHashMap<>();

	public OverloadControl(ConcurrencySettings concurrency, ClientThrottlingSettings throttling, LongSupplier nanoTime,
			StateChanges events) {
		this(concurrency, throttling, nanoTime, () -> ThreadLocalRandom.current().nextDouble(), events);
	}

	/**
	 * @param random a uniform draw in [0, 1), which decides each local refusal
	 */
	public OverloadControl(ConcurrencySettings concurrency, ClientThrottlingSettings throttling, LongSupplier nanoTime,
			DoubleSupplier random, StateChanges events) {
		this.concurrency = Objects.requireNonNull(concurrency, "concurrency");
		this.throttling = Objects.requireNonNull(throttling, "throttling");
		this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
		this.random = Objects.requireNonNull(random, "random");
		this.events = Objects.requireNonNull(events, "events");
	}

	/** Both off: every target admits everything. */
	public static OverloadControl off(StateChanges events) {
		return new OverloadControl(ConcurrencySettings.defaults(),
				ClientThrottlingSettings.defaults().withEnabled(false), System::nanoTime, events);
	}

	public ConcurrencySettings concurrency() {
		return this.concurrency;
	}

	public ClientThrottlingSettings throttling() {
		return this.throttling;
	}

	/**
	 * The admission of a target.
	 * @param domain its failure domain, which its limit is shared by
	 * @param account its provider account ({@code provider/account}), which its local
	 * refusals are shared by
	 */
	public Admission admission(String domain, String account) {
		if (!this.concurrency.enabled() && !this.throttling.enabled()) {
			return Admission.OPEN;
		}
		DomainLimit limit = this.concurrency.enabled()
				? this.limits.computeIfAbsent(domain,
						(key) -> new DomainLimit(key, this.concurrency,
								(halved) -> this.events.publish(StateChange.Kind.CONCURRENCY_LIMIT_HALVED, key,
										"calls in flight limited to " + halved + ", half of its peak or less", null)))
				: null;
		ProviderThrottle throttle = this.throttling.enabled()
				? this.throttles.computeIfAbsent(account,
						(key) -> new ProviderThrottle(key, this.throttling, this.nanoTime, this.random, this::changed))
				: null;
		return new TargetAdmission(throttle, limit, this.nanoTime);
	}

	/** The failure domains whose calls in flight are limited. */
	public Set<String> domains() {
		return Collections.unmodifiableSet(this.limits.keySet());
	}

	/** A failure domain's limit on calls in flight, or -1 when it has none. */
	public int limit(String domain) {
		DomainLimit limit = this.limits.get(domain);
		return (limit != null) ? limit.limit() : -1;
	}

	/** A failure domain's calls in flight from this pod, or -1 when it has no limit. */
	public int inFlight(String domain) {
		DomainLimit limit = this.limits.get(domain);
		return (limit != null) ? limit.inFlight() : -1;
	}

	/** The provider accounts ({@code provider/account}) whose requests are throttled. */
	public Set<String> accounts() {
		return Collections.unmodifiableSet(this.throttles.keySet());
	}

	/**
	 * A provider account's local refusal probability for its first-shed traffic class, or
	 * -1 when it is not throttled.
	 */
	public double refusalProbability(String account) {
		ProviderThrottle throttle = this.throttles.get(account);
		return (throttle != null) ? throttle.state()[0] : -1;
	}

	/** The key a target's local refusals are shared by: {@code provider/account}. */
	public static String account(Target target) {
		return target.provider() + "/" + target.account();
	}

	/**
	 * Forget a failure domain's limit (back to {@code initial-limit}) and an account's
	 * requests and accepts: an operator reset the domain's breaker. Calls in flight keep
	 * their places.
	 */
	public void forget(String domain, String account) {
		DomainLimit limit = this.limits.get(domain);
		if (limit != null) {
			limit.forget();
		}
		ProviderThrottle throttle = this.throttles.get(account);
		if (throttle != null) {
			throttle.forget();
		}
	}

	private void changed(String account, boolean refusing) {
		if (refusing) {
			this.events.publish(StateChange.Kind.CLIENT_THROTTLING_STARTED, account,
					"refuses more than it accepts: requests refused here, background first", null);
		}
		else {
			this.events.publish(StateChange.Kind.CLIENT_THROTTLING_STOPPED, account, "accepts again", null);
		}
	}

}
