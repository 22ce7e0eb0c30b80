package io.github.llmresilience.autoconfigure;

import java.time.Duration;

import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.PoolState;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code llm.resilience.pools.*} in a real Spring context: defaults, one change each, and
 * bad values failing at startup naming the property and its range.
 */
class PoolsPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.account=acct", "llm.resilience.targets.primary.model=gpt-4o",
				"llm.resilience.chains.chat=primary");

	@Test
	void byDefaultPoolsAreOffWithTheThreeDefaultPoolsAndTheirWaits() {
		this.runner.run((context) -> {
			LlmResilienceProperties.Pools pools = context.getBean(LlmResilienceProperties.class).getPools();
			assertThat(pools.isEnabled()).isFalse();
			assertThat(pools.isLearnCapacity()).isTrue();
			assertThat(context.getBean(PropertiesSettings.class).pools().pools())
				.containsExactly(PoolSettings.interactive(), PoolSettings.background(), PoolSettings.evaluation());
			PoolState state = context.getBean(LlmResilience.class).pools();
			assertThat(state.enabled()).isFalse();
			assertThat(state.queued()).containsOnlyKeys("interactive", "background", "evaluation");
			assertThat(state.scopes()).isEmpty();
		});
	}

	@Test
	void enabledWithACapacityTheScopeIsPartitionedByTheShares() {
		this.runner
			.withPropertyValues("llm.resilience.pools.enabled=true",
					"llm.resilience.pools.capacity.[acct/gpt-4o].requests-per-minute=500",
					"llm.resilience.pools.capacity.[acct/gpt-4o].tokens-per-minute=30000")
			.run((context) -> {
				PoolState.ScopePools scope = context.getBean(LlmResilience.class).pools().scopes().get("acct/gpt-4o");
				assertThat(scope.capacity()).isEqualTo(new Capacity(500, 30000));
				assertThat(scope.pools().get("interactive").requestsPerMinute()).isEqualTo(350);
				assertThat(scope.pools().get("background").tokensPerMinute()).isEqualTo(6000);
				assertThat(scope.pools().get("evaluation").requestsPerMinute()).isEqualTo(50);
				assertThat(scope.requestsAvailable()).isEqualTo(500);
			});
	}

	@Test
	void aBuiltInPoolTakesOnlyWhatIsSetAndAnAddedPoolIsCallable() {
		this.runner
			.withPropertyValues("llm.resilience.pools.classes.background.max-wait=300s",
					"llm.resilience.pools.classes.interactive.share=65", "llm.resilience.pools.classes.reindex.share=5",
					"llm.resilience.pools.classes.reindex.max-queued=10")
			.run((context) -> {
				LlmResilienceProperties.Pools pools = context.getBean(LlmResilienceProperties.class).getPools();
				assertThat(context.getBean(PropertiesSettings.class).pools().pools()).containsExactly(
						new PoolSettings("interactive", 65, Duration.ofSeconds(2), 1000),
						new PoolSettings("background", 20, Duration.ofSeconds(300), 1000), PoolSettings.evaluation(),
						new PoolSettings("reindex", 5, Duration.ofSeconds(2), 10));
				assertThat(context.getBean(LlmResilience.class).pools().queued()).containsKey("reindex");
				assertThat(CallOptions.pool("reindex").pool()).isEqualTo("reindex");
			});
	}

	@Test
	void aShareOutOfRangeFailsStartupNamingThePropertyAndRange() {
		failsNaming("llm.resilience.pools.classes.background.share=0", "llm.resilience.pools.classes.background.share",
				"must be between 1 and 100");
	}

	@Test
	void sharesAddingUpToMoreThanAllFailStartupNamingThePools() {
		failsNaming("llm.resilience.pools.classes.reindex.share=10", "llm.resilience.pools.classes",
				"shares adding up to at most 100");
	}

	@Test
	void anAddedPoolWithoutAShareFailsStartupNamingItsShare() {
		failsNaming("llm.resilience.pools.classes.reindex.max-wait=10s", "llm.resilience.pools.classes.reindex.share",
				"must be set");
	}

	@Test
	void aNegativeMaxWaitFailsStartupNamingIt() {
		failsNaming("llm.resilience.pools.classes.interactive.max-wait=-1s",
				"llm.resilience.pools.classes.interactive.max-wait", "must be zero or a positive duration");
	}

	@Test
	void aNegativeQueueBoundFailsStartupNamingIt() {
		failsNaming("llm.resilience.pools.classes.evaluation.max-queued=-1",
				"llm.resilience.pools.classes.evaluation.max-queued", "between 0 and 1000000");
	}

	@Test
	void aCapacityForAScopeNoTargetHasFailsStartupNamingTheKnownScopes() {
		failsNaming("llm.resilience.pools.capacity.[other/gpt-4o].requests-per-minute=60",
				"llm.resilience.pools.capacity.[other/gpt-4o]", "known scopes: [acct/gpt-4o]");
	}

	@Test
	void aNegativeCapacityFailsStartupNamingIt() {
		failsNaming("llm.resilience.pools.capacity.[acct/gpt-4o].tokens-per-minute=-5",
				"llm.resilience.pools.capacity.[acct/gpt-4o].tokens-per-minute", "zero or more");
	}

	@Test
	void aLearnedCapacityHasAFloorByDefaultThatCanBeLoweredToNone() {
		this.runner
			.run((context) -> assertThat(context.getBean(PropertiesSettings.class).pools().learnedCapacityFloor())
				.isEqualTo(PartitionSettings.DEFAULT_LEARNED_CAPACITY_FLOOR));
		this.runner
			.withPropertyValues("llm.resilience.pools.learned-capacity-floor.requests-per-minute=0",
					"llm.resilience.pools.learned-capacity-floor.tokens-per-minute=0")
			.run((context) -> {
				PartitionSettings settings = context.getBean(PropertiesSettings.class).pools();
				assertThat(settings.learnedCapacityFloor()).isEqualTo(Capacity.UNKNOWN);
				assertThat(settings.believable(new Capacity(1, 1))).isEqualTo(new Capacity(1, 1));
			});
	}

	@Test
	void aNegativeLearnedCapacityFloorFailsStartupNamingIt() {
		failsNaming("llm.resilience.pools.learned-capacity-floor.requests-per-minute=-1",
				"llm.resilience.pools.learned-capacity-floor.requests-per-minute", "zero or more");
	}

	@Test
	void aCapacityBeyondWhatABucketRefillsFailsStartupNamingItsRange() {
		failsNaming("llm.resilience.pools.capacity.[acct/gpt-4o].requests-per-minute=60000000001",
				"llm.resilience.pools.capacity.[acct/gpt-4o].requests-per-minute",
				"at most " + Capacity.MAX_PER_MINUTE);
	}

	private void failsNaming(String setting, String property, String allowed) {
		this.runner.withPropertyValues(setting).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as("a failure analysis of %s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: " + property).contains(allowed);
		});
	}

}
