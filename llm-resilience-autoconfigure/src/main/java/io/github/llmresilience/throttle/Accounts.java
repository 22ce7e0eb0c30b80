package io.github.llmresilience.throttle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import org.jspecify.annotations.Nullable;

/**
 * The state of each account: parked after a quota answer until the provider's reset (or
 * {@code quota.default-park}), locked after consecutive credential errors for a cool-off
 * that doubles with each new lock. Any success resets the credential count.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Accounts {

	private final Clock clock;

	private final AccountSettings settings;

	private final StateChanges events;

	private final Map<String, AccountStatus> accounts = new ConcurrentHashMap<>();

	public Accounts(Clock clock, AccountSettings settings, StateChanges events) {
		this.clock = clock;
		this.settings = settings;
		this.events = events;
	}

	public AccountSettings settings() {
		return this.settings;
	}

	/**
	 * The status of an account, created on first use; hold on to it, reads are lock-free.
	 */
	public AccountStatus account(String name) {
		return this.accounts.computeIfAbsent(name, AccountStatus::new);
	}

	public @Nullable AccountStatus find(String name) {
		return this.accounts.get(name);
	}

	public Collection<AccountStatus> all() {
		return this.accounts.values();
	}

	/** Whether the account may be called now. */
	public boolean isUsable(AccountStatus account) {
		long parkedUntil = account.parkedUntil;
		long lockedUntil = account.lockedUntil;
		// Every call asks this: an account never parked or locked needs no clock read.
		if ((parkedUntil | lockedUntil) == 0) {
			return true;
		}
		long now = this.clock.millis();
		return parkedUntil <= now && lockedUntil <= now;
	}

	/**
	 * Park an account after a quota answer. As with a gate, only a real transition is
	 * published: a usable account becoming parked, or a park pushed well past what was
	 * announced; the answers of calls in flight when the quota ran out extend it
	 * silently.
	 * @param hint the provider's reset, or {@code null}
	 * @param reason the provider's error type
	 * @return when it may be called again
	 */
	public Instant park(AccountStatus account, @Nullable Duration hint, @Nullable String reason) {
		// A park is kept in milliseconds: a hint that rounds to 0 ms (or a reset already
		// past under clock skew) names no reset at all.
		Duration park = (hint != null && hint.toMillis() > 0) ? hint : this.settings.defaultPark();
		if (park.compareTo(this.settings.maxPark()) > 0) {
			park = this.settings.maxPark();
		}
		long now = this.clock.millis();
		return parkUntil(account, now, now + park.toMillis(), "quota" + ((reason != null) ? " (" + reason + ")" : ""),
				"");
	}

	/**
	 * Park an account until the moment another pod of the fleet was told, converted to
	 * this pod's clock; published only as a transition, as {@link #park} does. An end
	 * beyond {@code max-park} from now is cut to it.
	 * @param name the account
	 * @param untilMillis the end, on this pod's clock
	 * @param reason why, as the other pod recorded it
	 */
	public void mirrorPark(String name, long untilMillis, String reason) {
		long now = this.clock.millis();
		long until = Math.min(untilMillis, now + this.settings.maxPark().toMillis());
		if (until > now) {
			parkUntil(account(name), now, until, reason, ", from the fleet");
		}
	}

	private Instant parkUntil(AccountStatus account, long now, long until, String reason, String source) {
		long previous;
		long announced;
		synchronized (account) {
			previous = account.parkedUntil;
			if (previous >= until) {
				return Instant.ofEpochMilli(previous);
			}
			account.parkedUntil = until;
			account.parkReason = reason;
			announced = account.parkAnnouncedUntil;
			if (previous > now && !ThrottleGate.isNewsworthyExtension(announced, until, now)) {
				return Instant.ofEpochMilli(until);
			}
			account.parkAnnouncedUntil = until;
		}
		String detail = reason + source + ((previous > now) ? ", park extended by " + (until - announced) + " ms" : "");
		this.events.publish(StateChange.Kind.ACCOUNT_PARKED, account.name, detail, Instant.ofEpochMilli(until));
		return Instant.ofEpochMilli(until);
	}

	/**
	 * Lock an account until the moment another pod of the fleet locked it, converted to
	 * this pod's clock; published only when it was not locked. An end beyond
	 * {@code lock-duration-max} from now is cut to it.
	 * @param name the account
	 * @param untilMillis the end, on this pod's clock
	 * @param reason why, as the other pod recorded it
	 */
	public void mirrorLock(String name, long untilMillis, String reason) {
		AccountStatus account = account(name);
		long now = this.clock.millis();
		long until = Math.min(untilMillis, now + this.settings.lockDurationMax().toMillis());
		synchronized (account) {
			long previous = account.lockedUntil;
			if (until <= now || previous >= until) {
				return;
			}
			account.lockedUntil = until;
			account.lockReason = reason;
			if (previous > now) {
				return;
			}
		}
		this.events.publish(StateChange.Kind.ACCOUNT_LOCKED, name, reason + ", from the fleet",
				Instant.ofEpochMilli(until));
	}

	/**
	 * Count a credential error; the {@code lock-after}-th in a row locks the account.
	 * While the account is locked, errors are counted but neither lock it again nor
	 * publish: the answers of calls that were in flight when the key went bad belong to
	 * the incident that locked it, and must not double the cool-off once per answer. Only
	 * a new lock, after the cool-off has passed, doubles it.
	 * @return when it may be called again: now unless the account is locked
	 */
	public Instant credentialFailure(AccountStatus account, @Nullable String reason) {
		long until;
		synchronized (account) {
			account.consecutiveCredentialErrors++;
			long now = this.clock.millis();
			if (account.lockedUntil > now) {
				return Instant.ofEpochMilli(account.lockedUntil);
			}
			if (account.consecutiveCredentialErrors < this.settings.lockAfter()) {
				return Instant.ofEpochMilli(now);
			}
			account.consecutiveCredentialErrors = 0;
			account.locks++;
			Duration coolOff = this.settings.lockDuration();
			for (int i = 1; i < account.locks && coolOff.compareTo(this.settings.lockDurationMax()) < 0; i++) {
				coolOff = coolOff.multipliedBy(2);
			}
			if (coolOff.compareTo(this.settings.lockDurationMax()) > 0) {
				coolOff = this.settings.lockDurationMax();
			}
			until = now + coolOff.toMillis();
			account.lockedUntil = until;
			account.lockReason = "credential rejected " + this.settings.lockAfter() + " times in a row"
					+ ((reason != null) ? " (" + reason + ")" : "") + ", lock " + account.locks;
		}
		this.events.publish(StateChange.Kind.ACCOUNT_LOCKED, account.name, account.lockReason,
				Instant.ofEpochMilli(until));
		return Instant.ofEpochMilli(until);
	}

	/** A success: the credential works, so the count of errors in a row starts again. */
	public void success(AccountStatus account) {
		// Read before write: the hot path should not dirty a shared cache line.
		if (account.consecutiveCredentialErrors != 0 || account.locks != 0) {
			synchronized (account) {
				account.consecutiveCredentialErrors = 0;
				account.locks = 0;
			}
		}
	}

	/** Lift a park now (an operator's decision). */
	public boolean unpark(String name) {
		AccountStatus account = this.accounts.get(name);
		if (account == null || account.parkedUntil <= this.clock.millis()) {
			return false;
		}
		synchronized (account) {
			account.parkedUntil = 0;
		}
		this.events.publish(StateChange.Kind.ACCOUNT_UNPARKED, name, "unparked by an operator", null);
		return true;
	}

	/** Lift a lock now (an operator's decision). */
	public boolean unlock(String name) {
		AccountStatus account = this.accounts.get(name);
		if (account == null || account.lockedUntil <= this.clock.millis()) {
			return false;
		}
		synchronized (account) {
			account.lockedUntil = 0;
			account.consecutiveCredentialErrors = 0;
		}
		this.events.publish(StateChange.Kind.ACCOUNT_UNLOCKED, name, "unlocked by an operator", null);
		return true;
	}

	/** One account. */
	public static final class AccountStatus {

		private final String name;

		volatile long parkedUntil;

		/** The end of the park last published; guarded by the account's monitor. */
		long parkAnnouncedUntil;

		volatile long lockedUntil;

		volatile int consecutiveCredentialErrors;

		volatile int locks;

		volatile @Nullable String parkReason;

		volatile @Nullable String lockReason;

		AccountStatus(String name) {
			this.name = name;
		}

		public String name() {
			return this.name;
		}

		public Instant parkedUntil() {
			return Instant.ofEpochMilli(this.parkedUntil);
		}

		public Instant lockedUntil() {
			return Instant.ofEpochMilli(this.lockedUntil);
		}

		/** When the account may be called again; in the past when it may be now. */
		public Instant availableAt() {
			return Instant.ofEpochMilli(Math.max(this.parkedUntil, this.lockedUntil));
		}

		public @Nullable String parkReason() {
			return this.parkReason;
		}

		public @Nullable String lockReason() {
			return this.lockReason;
		}

		public int consecutiveCredentialErrors() {
			return this.consecutiveCredentialErrors;
		}

	}

}
