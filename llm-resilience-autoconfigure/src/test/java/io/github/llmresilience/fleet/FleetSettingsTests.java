package io.github.llmresilience.fleet;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class FleetSettingsTests {

	@Test
	void defaultsAreTheDesigns() {
		FleetSettings settings = FleetSettings.defaults("orders");
		assertThat(settings.syncInterval()).isEqualTo(Duration.ofSeconds(1));
		assertThat(settings.window()).isEqualTo(Duration.ofSeconds(30));
		assertThat(settings.probeInterval()).isNull();
	}

	@Test
	void aNamespaceWithABraceIsRefused() {
		// A brace would break the hash tag that keeps a namespace in one Cluster slot.
		assertThatIllegalArgumentException().isThrownBy(() -> FleetSettings.defaults("orders}x"))
			.withMessageStartingWith("namespace must be");
	}

	@Test
	void eachOutOfRangeComponentIsNamed() {
		FleetSettings d = FleetSettings.defaults("orders");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FleetSettings("orders", Duration.ZERO, d.window(), null, d.probeLease(),
					d.gateJitter(), d.commandTimeout()))
			.withMessageStartingWith("syncInterval must be between");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FleetSettings("orders", d.syncInterval(), Duration.ofHours(2), null, d.probeLease(),
					d.gateJitter(), d.commandTimeout()))
			.withMessageStartingWith("window must be between");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FleetSettings("orders", Duration.ofSeconds(10), Duration.ofSeconds(5), null,
					d.probeLease(), d.gateJitter(), d.commandTimeout()))
			.withMessageStartingWith("window must be at least syncInterval");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FleetSettings("orders", d.syncInterval(), d.window(), Duration.ofMillis(1),
					d.probeLease(), d.gateJitter(), d.commandTimeout()))
			.withMessageStartingWith("probeInterval must be between");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FleetSettings("orders", d.syncInterval(), d.window(), null, d.probeLease(),
					Duration.ofSeconds(11), d.commandTimeout()))
			.withMessageStartingWith("gateJitter must be between");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new FleetSettings("orders", d.syncInterval(), d.window(), null, d.probeLease(),
					d.gateJitter(), Duration.ofMinutes(2)))
			.withMessageStartingWith("commandTimeout must be between");
	}

}
