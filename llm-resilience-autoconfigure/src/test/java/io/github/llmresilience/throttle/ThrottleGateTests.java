package io.github.llmresilience.throttle;

import java.time.Duration;

import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate's open check skips the clock for a scope that is not gated and forgets a gate
 * that has passed; neither may change what callers see.
 */
class ThrottleGateTests {

	private final ManualTime time = new ManualTime();

	private final ThrottleGate gate = new ThrottleGate(this.time, ThrottleSettings.defaults(),
			new StateChanges(this.time));

	@Test
	void aScopeIsOpenUntilGatedAndClosedUntilTheGatePasses() {
		ThrottleGate.Scope scope = this.gate.scope("prod/gpt-4o");
		assertThat(this.gate.isReleased(scope)).isTrue();
		this.gate.gate(scope, Duration.ofSeconds(10), "rate_limit_exceeded");
		assertThat(this.gate.isReleased(scope)).isFalse();
		this.time.advance(Duration.ofSeconds(9));
		assertThat(this.gate.isReleased(scope)).isFalse();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.gate.isReleased(scope)).isTrue();
		assertThat(scope.gatedUntil()).isBeforeOrEqualTo(this.time.instant());
		assertThat(this.gate.gated()).isEmpty();
	}

	@Test
	void aPassedGateThatWasForgottenCanBeClosedAgain() {
		ThrottleGate.Scope scope = this.gate.scope("prod/gpt-4o");
		this.gate.gate(scope, Duration.ofSeconds(1), null);
		this.time.advance(Duration.ofSeconds(2));
		assertThat(this.gate.isReleased(scope)).isTrue();
		// A shorter gate than the one that passed still closes the scope.
		this.gate.gate(scope, Duration.ofMillis(500), null);
		assertThat(this.gate.isReleased(scope)).isFalse();
		assertThat(scope.gatedUntil()).isEqualTo(this.time.instant().plusMillis(500));
		assertThat(this.gate.gated()).containsOnlyKeys("prod/gpt-4o");
	}

	@Test
	void anOperatorOpensAGatedScope() {
		ThrottleGate.Scope scope = this.gate.scope("prod/gpt-4o");
		this.gate.gate(scope, null, null);
		assertThat(this.gate.isReleased(scope)).isFalse();
		this.gate.release("prod/gpt-4o");
		assertThat(this.gate.isReleased(scope)).isTrue();
	}

	@Test
	void anAccountIsUsableUntilParkedAndAgainAfterItsPark() {
		Accounts accounts = new Accounts(this.time, AccountSettings.defaults(), new StateChanges(this.time));
		Accounts.AccountStatus account = accounts.account("prod");
		assertThat(accounts.isUsable(account)).isTrue();
		accounts.park(account, Duration.ofMinutes(1), "insufficient_quota");
		assertThat(accounts.isUsable(account)).isFalse();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(accounts.isUsable(account)).isTrue();
		accounts.credentialFailure(account, "invalid_api_key");
		accounts.credentialFailure(account, "invalid_api_key");
		assertThat(accounts.isUsable(account)).isFalse();
	}

}
