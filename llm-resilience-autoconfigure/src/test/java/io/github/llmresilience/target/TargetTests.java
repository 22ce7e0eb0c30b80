package io.github.llmresilience.target;

import java.net.URI;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The names a {@link Target} and a chain may have: whatever the fleet's store can carry
 * back unchanged (no comma, no control character), refused at once otherwise.
 */
class TargetTests {

	@Test
	void namesOfEveryKindBuild() {
		Target target = new Target("bedrock-claude", "bedrock", "prod eu/team-1", "anthropic.claude-3-5-sonnet-v1:0",
				"eu-central-1", URI.create("https://bedrock.example"), null);
		assertThat(target.quotaScope()).isEqualTo("prod eu/team-1/anthropic.claude-3-5-sonnet-v1:0");
	}

	@Test
	void aCommaOrAControlCharacterInAnyNameIsRefusedNamingIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Target("primary", "openai", "prod,eu", "gpt-4o", "us", null, null))
			.withMessage("account must not contain a comma or a control character such as a tab or a line break "
					+ "(the fleet's store separates its fields with them), was 'prod,eu'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Target("primary", "openai", "prod", "gpt-4o\n", "us", null, null))
			.withMessageStartingWith("model must not contain")
			.withMessageEndingWith("was 'gpt-4o\\n'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Target("prim\tary", "openai", "prod", "gpt-4o", "us", null, null))
			.withMessageStartingWith("name must not contain");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Target("primary", "openai", "prod", "gpt-4o", "us\u0000", null, null))
			.withMessageEndingWith("was 'us\\u0000'");
	}

	@Test
	void aChainWhoseNameTheFleetCouldNotCarryIsRefused() {
		List<Target> targets = List.of(Target.of("a", "openai"));
		StateChanges events = new StateChanges(new ManualTime());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TargetRegistry(targets, Map.of("chat\nnight", List.of("a")), events))
			.withMessageStartingWith("chain must not contain");
		assertThat(new TargetRegistry(targets, Map.of("chat", List.of("a")), events).chains()).containsKey("chat");
	}

}
