package io.github.llmresilience.target.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A {@link TargetRegistry} refuses, with a message that names the culprit, duplicate
 * target names and chains that are empty, name an unknown target or name one twice, at
 * startup and on a runtime edit alike; an edit that is refused changes nothing and tells
 * nobody, an edit that is accepted replaces the chain at once (earlier snapshots and the
 * configured chains stay as they were), tells each listener once, after the change, and
 * is published as one {@code CHAIN_EDITED} state change.
 */
class TargetRegistryTests {

	private static final List<Target> TARGETS = List.of(Target.of("primary", "openai"),
			Target.of("secondary", "anthropic"), Target.of("tertiary", "gemini"));

	private final ManualTime time = new ManualTime();

	private final List<StateChange> changes = new CopyOnWriteArrayList<>();

	private final List<String> edited = new CopyOnWriteArrayList<>();

	private final TargetRegistry registry = registry(
			Map.of("chat", List.of("primary", "secondary"), "batch", List.of("tertiary")));

	@Test
	void targetsAndChainsAreKeptInTheirOrder() {
		assertThat(this.registry.targets()).containsOnlyKeys("primary", "secondary", "tertiary");
		assertThat(this.registry.targets().keySet()).containsExactly("primary", "secondary", "tertiary");
		assertThat(this.registry.target("secondary").provider()).isEqualTo("anthropic");
		assertThat(this.registry.chain("chat")).containsExactly("primary", "secondary");
		assertThat(this.registry.chains()).isEqualTo(this.registry.configuredChains());
	}

	@Test
	void anUnknownTargetOrChainIsNamedWithTheKnownOnes() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.target("fourth"))
			.withMessage("No target named 'fourth'; known targets: [primary, secondary, tertiary]");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.chain("embed"))
			.withMessageStartingWith("No chain named 'embed'; known chains: [")
			.withMessageContaining("chat")
			.withMessageContaining("batch");
	}

	@Test
	void twoTargetsWithOneNameAreRefused() {
		List<Target> targets = List.of(Target.of("primary", "openai"), Target.of("primary", "anthropic"));
		assertThatIllegalArgumentException().isThrownBy(() -> new TargetRegistry(targets, Map.of(), events()))
			.withMessage("Two targets are named 'primary'");
	}

	@ParameterizedTest
	@MethodSource("badChains")
	void aBadChainIsRefusedAtStartup(List<String> members, String message) {
		Map<String, List<String>> chains = new LinkedHashMap<>();
		chains.put("chat", members);
		assertThatIllegalArgumentException().isThrownBy(() -> new TargetRegistry(TARGETS, chains, events()))
			.withMessage(message);
	}

	@ParameterizedTest
	@MethodSource("badChains")
	void aBadEditIsRefusedAndChangesNothing(List<String> members, String message) {
		Map<String, List<String>> before = this.registry.chains();
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.replaceChain("chat", members))
			.withMessage(message);
		assertThat(this.registry.chains()).isSameAs(before);
		assertThat(this.registry.chain("chat")).containsExactly("primary", "secondary");
		assertThat(this.edited).isEmpty();
		assertThat(this.changes).isEmpty();
	}

	static Stream<Arguments> badChains() {
		return Stream.of(Arguments.of(List.of(), "Chain 'chat' needs at least one target"),
				Arguments.of(null, "Chain 'chat' needs at least one target"),
				Arguments.of(List.of("primary", "fourth"),
						"Chain 'chat' names unknown target 'fourth'; known targets: [primary, secondary, tertiary]"),
				Arguments.of(List.of("secondary", "primary", "secondary"),
						"Chain 'chat' names target 'secondary' twice"),
				Arguments.of(Arrays.asList("primary", null),
						"Chain 'chat' names unknown target 'null'; known targets: [primary, secondary, tertiary]"));
	}

	@Test
	void anEditOfAnUnknownChainIsRefusedAndChangesNothing() {
		Map<String, List<String>> before = this.registry.chains();
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.replaceChain("embed", List.of("primary")))
			.withMessageStartingWith("No chain named 'embed'; known chains: [");
		assertThat(this.registry.chains()).isSameAs(before).doesNotContainKey("embed");
		assertThat(this.edited).isEmpty();
		assertThat(this.changes).isEmpty();
	}

	@Test
	void anEditReplacesTheChainAndKeepsTheConfiguredOne() {
		Map<String, List<String>> before = this.registry.chains();
		this.registry.replaceChain("chat", List.of("secondary", "tertiary", "primary"));
		assertThat(this.registry.chain("chat")).containsExactly("secondary", "tertiary", "primary");
		assertThat(this.registry.chains().get("batch")).containsExactly("tertiary");
		assertThat(this.registry.configuredChains().get("chat")).containsExactly("primary", "secondary");
		assertThat(before.get("chat")).as("an earlier snapshot").containsExactly("primary", "secondary");
	}

	@Test
	void eachEditTellsEachListenerOnceAfterTheChainIsReplaced() {
		List<List<String>> seen = new CopyOnWriteArrayList<>();
		this.registry.onChainEdited((name) -> seen.add(this.registry.chain(name)));
		this.registry.replaceChain("chat", List.of("secondary", "primary"));
		this.registry.replaceChain("batch", List.of("tertiary", "primary"));
		this.registry.replaceChain("chat", List.of("secondary", "primary"));

		assertThat(this.edited).containsExactly("chat", "batch", "chat");
		assertThat(seen).containsExactly(List.of("secondary", "primary"), List.of("tertiary", "primary"),
				List.of("secondary", "primary"));
		assertThat(this.changes).hasSize(3).allSatisfy((change) -> {
			assertThat(change.kind()).isEqualTo(StateChange.Kind.CHAIN_EDITED);
			assertThat(change.at()).isEqualTo(this.time.instant());
			assertThat(change.until()).isNull();
		});
		assertThat(this.changes.get(0).subject()).isEqualTo("chat");
		assertThat(this.changes.get(0).detail()).isEqualTo("[primary, secondary] -> [secondary, primary]");
		assertThat(this.changes.get(2).detail()).isEqualTo("[secondary, primary] -> [secondary, primary]");
	}

	@Test
	void theChainsCannotBeChangedFromOutside() {
		Map<String, List<String>> chains = new LinkedHashMap<>();
		List<String> chat = new ArrayList<>(List.of("primary", "secondary"));
		chains.put("chat", chat);
		TargetRegistry registry = new TargetRegistry(TARGETS, chains, events());
		chat.add("tertiary");
		chains.put("batch", List.of("tertiary"));
		assertThat(registry.chains()).containsOnlyKeys("chat");
		assertThat(registry.chain("chat")).containsExactly("primary", "secondary");

		List<String> edit = new ArrayList<>(List.of("tertiary"));
		registry.replaceChain("chat", edit);
		edit.add("primary");
		assertThat(registry.chain("chat")).containsExactly("tertiary");

		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.chains().put("batch", List.of("primary")));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.chain("chat").add("primary"));
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> registry.targets().remove("primary"));
	}

	private TargetRegistry registry(Map<String, List<String>> chains) {
		TargetRegistry registry = new TargetRegistry(TARGETS, new LinkedHashMap<>(chains), events());
		registry.onChainEdited(this.edited::add);
		return registry;
	}

	private StateChanges events() {
		StateChanges events = new StateChanges(this.time);
		events.addListener(this.changes::add);
		return events;
	}

}
