package io.github.llmresilience.fleet;

import java.util.List;

import io.github.llmresilience.fleet.FleetStore.Batch;
import io.github.llmresilience.fleet.FleetStore.Counts;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.fleet.Outbox.Pending;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a pod keeps for its fleet's store: the newest write per kind and subject, holds
 * only once the store's clock is known, and batches until an answer acknowledges them.
 */
class OutboxTests {

	final Outbox outbox = new Outbox();

	@Test
	void aHoldEndingNoLaterThanOneQueuedIsNotQueued() {
		assertThat(this.outbox.hold(new Pending(Write.Kind.GATE, "acct/gpt-4o", "rate limited", 2000))).isTrue();
		assertThat(this.outbox.hold(new Pending(Write.Kind.GATE, "acct/gpt-4o", "rate limited", 1000))).isFalse();
		assertThat(this.outbox.hold(new Pending(Write.Kind.GATE, "acct/gpt-4o", "rate limited", 3000))).isTrue();
		assertThat(this.outbox.drain(true)).extracting(Pending::number).containsExactly(3000L);
	}

	@Test
	void holdsWaitForTheStoresClockAndOtherWritesGo() {
		this.outbox.hold(new Pending(Write.Kind.PARK, "acct", "quota", 5000));
		this.outbox.command(new Pending(Write.Kind.CHAIN, "chat", "b,a", 0));
		assertThat(this.outbox.drain(false)).extracting(Pending::kind).containsExactly(Write.Kind.CHAIN);
		assertThat(this.outbox.isQueued(Write.Kind.PARK, "acct")).isTrue();
		assertThat(this.outbox.drain(true)).extracting(Pending::kind).containsExactly(Write.Kind.PARK);
		assertThat(this.outbox.hasWrites()).isFalse();
	}

	@Test
	void aWriteNotDeliveredGoesBackUnlessANewerOneReplacedIt() {
		this.outbox.command(new Pending(Write.Kind.CHAIN, "chat", "b,a", 0));
		this.outbox.command(new Pending(Write.Kind.RULES, "rules", "x", 0));
		List<Pending> sent = this.outbox.drain(true);
		this.outbox.command(new Pending(Write.Kind.CHAIN, "chat", "a", 0));
		this.outbox.requeue(sent);
		assertThat(this.outbox.drain(true)).extracting(Pending::value).containsExactly("x", "a");
	}

	@Test
	void aBatchIsSentUntilAcknowledgedAndNothingCountedMakesNone() {
		this.outbox.batch(List.of(), 0);
		assertThat(this.outbox.batches()).isEmpty();
		this.outbox.batch(List.of(new Counts("d", 3, 1, 0)), 1000);
		this.outbox.batch(List.of(new Counts("d", 2, 0, 0)), 2000);
		assertThat(this.outbox.batches()).extracting(Batch::sequence).containsExactly(1L, 2L);
		this.outbox.acknowledge(1);
		assertThat(this.outbox.batches()).extracting(Batch::sequence).containsExactly(2L);
		this.outbox.acknowledge(5);
		assertThat(this.outbox.batches()).isEmpty();
	}

	@Test
	void anEndGoesOnTheStoresClock() {
		assertThat(new Pending(Write.Kind.GATE, "s", "r", 10_000).toWrite(-3_600_000).number()).isEqualTo(3_610_000);
		assertThat(new Pending(Write.Kind.TRIAL, "d", "ok", 7).toWrite(-3_600_000).number()).isEqualTo(7);
	}

}
