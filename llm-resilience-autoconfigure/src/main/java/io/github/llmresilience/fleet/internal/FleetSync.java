package io.github.llmresilience.fleet.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

import io.github.llmresilience.breaker.internal.Breaker;
import io.github.llmresilience.breaker.internal.Breakers;
import io.github.llmresilience.breaker.internal.SharedOutcomes;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.change.internal.StateChanges;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.fleet.FleetStore.DomainView;
import io.github.llmresilience.fleet.FleetStore.Hold;
import io.github.llmresilience.fleet.FleetStore.Operation;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.spend.internal.DomainSpend;
import io.github.llmresilience.spend.internal.Spend;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.target.internal.TargetRegistry;
import io.github.llmresilience.throttle.internal.Accounts;
import io.github.llmresilience.throttle.internal.ThrottleGate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pod's link to its fleet. Calls count outcomes and queue writes (no lock held long,
 * no I/O); the fleet's own thread sends them every {@code sync-interval}, or at once
 * after a write or a hint from another pod, in one round trip, and makes the local
 * breakers, gates, parks, locks and chains follow what comes back.
 *
 * <p>
 * When the store is slow or down, nothing changes for calls: the pod decides alone on its
 * own state, keeps its counts and writes, and sends them when the store is back.
 */
public final class FleetSync implements Fleet {

	private static final Logger logger = LoggerFactory.getLogger(FleetSync.class);

	/** Writes kept while the store is away; beyond it the oldest are dropped. */
	static final int MAX_PENDING = 1000;

	private final FleetSettings settings;

	private final FleetStore store;

	private final Clock clock;

	private final StateChanges events;

	private final Breakers breakers;

	private final ThrottleGate gate;

	private final Accounts accounts;

	private final TargetRegistry registry;

	/** The classification rules, shared when given; {@code null} to share none. */
	private final @Nullable ClassificationRules rules;

	/** The reason the fleet gives a breaker status an operator set. */
	private static final String OPERATOR = "by an operator";

	/** Where this pod's own edits are told from the fleet's. */
	static final String SOURCE = "fleet";

	private final DoubleSupplier random;

	private final String pod;

	private final Map<String, Link> links = new ConcurrentHashMap<>();

	/** Writes not yet sent, by kind and subject, oldest first; guarded by itself. */
	private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();

	private final AtomicBoolean triggered = new AtomicBoolean();

	private final ScheduledExecutorService executor;

	/** The last operator command applied; {@code -1} until the first sync. */
	private long knownOperation = -1;

	/** {@code null} before the first sync. */
	private volatile @Nullable Boolean connected;

	private volatile @Nullable Instant lastSync;

	private volatile Map<String, FleetState.Domain> domains = Map.of();

	private volatile boolean closed;

	/** Each domain's spend, summed across the fleet per window; {@code null} for none. */
	private @Nullable Spend spend;

	/**
	 * @param pod this pod's id: unique in the fleet, names the prober
	 * @param random the source of gate jitter, uniform in [0, 1)
	 * @param rules the classification rules to share, or {@code null}
	 */
	public FleetSync(FleetSettings settings, FleetStore store, Clock clock, StateChanges events, Breakers breakers,
			ThrottleGate gate, Accounts accounts, TargetRegistry registry, String pod, DoubleSupplier random,
			@Nullable ClassificationRules rules) {
		this.settings = settings;
		this.store = store;
		this.clock = clock;
		this.events = events;
		this.breakers = breakers;
		this.gate = gate;
		this.accounts = accounts;
		this.registry = registry;
		this.pod = pod;
		this.random = random;
		this.rules = rules;
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "llm-resilience-fleet-" + settings.namespace());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Sum each domain's spend across the fleet, window by window: set before
	 * {@link #start()}.
	 */
	public void shareSpend(Spend spend) {
		this.spend = spend;
	}

	/**
	 * Link every breaker, sync once on the caller's thread (so that a new pod knows the
	 * fleet's gates, parks, locks and open domains before its first call; bounded by the
	 * store's command timeout), then sync every interval and on every hint.
	 */
	public void start() {
		start(true);
	}

	/**
	 * Start, with or without the periodic sync: this package's tests sync by hand on
	 * virtual time, with only writes and hints triggering one by themselves.
	 */
	void start(boolean periodic) {
		for (Breaker breaker : this.breakers.all()) {
			Spend spend = this.spend;
			Link link = new Link(breaker, (spend != null) ? spend.get(breaker.domain()) : null);
			this.links.put(breaker.domain(), link);
			breaker.share(link);
		}
		if (this.rules != null) {
			// An operator's edit on this pod goes to every pod; one that came from the
			// fleet does not go back.
			this.rules.addListener((edit) -> {
				if (!SOURCE.equals(edit.source())) {
					command(Write.Kind.RULES, "rules", RuleCodec.encode(edit.rules()), 0);
				}
			});
		}
		sync();
		if (periodic) {
			long interval = this.settings.syncInterval().toNanos();
			this.executor.scheduleWithFixedDelay(this::syncLoop, interval, interval, TimeUnit.NANOSECONDS);
		}
		try {
			this.store.listen(this::trigger);
		}
		catch (RuntimeException ex) {
			// Hints only hasten a sync; the interval still runs.
			logger.warn("Fleet hints unavailable, syncing every {} only", this.settings.syncInterval(), ex);
		}
	}

	/** Sync soon, on the fleet's thread; returns at once. */
	void trigger() {
		if (!this.closed && this.triggered.compareAndSet(false, true)) {
			try {
				this.executor.execute(() -> {
					this.triggered.set(false);
					syncLoop();
				});
			}
			catch (RuntimeException ex) {
				// Shut down meanwhile.
				this.triggered.set(false);
			}
		}
	}

	// Fleet

	@Override
	public void hold(Write.Kind kind, String subject, String reason, Instant until) {
		Pending write = new Pending(kind, subject, clean(reason), until.toEpochMilli());
		synchronized (this.pending) {
			Pending previous = this.pending.get(write.key());
			if (previous != null && previous.number >= write.number) {
				return;
			}
			queue(write);
		}
		trigger();
	}

	@Override
	public void command(Write.Kind kind, String subject, String value) {
		command(kind, subject, clean(value), 0);
	}

	private void queue(Pending write) {
		// Re-inserted at the end: a release after a gate, then a new gate, keep their
		// order.
		this.pending.remove(write.key());
		this.pending.put(write.key(), write);
		if (this.pending.size() > MAX_PENDING) {
			String oldest = this.pending.keySet().iterator().next();
			this.pending.remove(oldest);
			logger.warn("Fleet store away too long: dropped the write {}", oldest);
		}
	}

	/** Tabs and line breaks separate the store's fields: never in a value. */
	private static String clean(String value) {
		return value.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ').replace('|', '/');
	}

	@Override
	public FleetState state() {
		Boolean connected = this.connected;
		return new FleetState(true, connected != null && connected, this.settings.namespace(), this.pod, this.lastSync,
				this.domains);
	}

	@Override
	public void close() {
		this.closed = true;
		this.executor.shutdownNow();
		try {
			this.store.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Closing the fleet store failed", ex);
		}
	}

	// Sync

	/**
	 * A sync on the fleet's thread: whatever goes wrong, the loop goes on (an executor
	 * stops a periodic task for good at its first throw).
	 */
	private void syncLoop() {
		try {
			sync();
		}
		catch (Throwable ex) {
			logger.warn("Fleet sync failed", ex);
		}
	}

	/** One round trip; a store's failure or garbage never throws out of it. */
	synchronized void sync() {
		if (this.closed && this.connected != null) {
			return;
		}
		List<Pending> writes = drain();
		List<FleetStore.DomainCounts> counts = new ArrayList<>(this.links.size());
		long now = this.clock.millis();
		for (Link link : this.links.values()) {
			counts.add(link.counts(now));
		}
		FleetStore.View view;
		try {
			List<Write> sent = new ArrayList<>(writes.size());
			for (Pending write : writes) {
				sent.add(write.toWrite(now));
			}
			view = this.store
				.sync(new FleetStore.Sync(this.pod, this.knownOperation, this.settings.window(), counts, sent));
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			// Keep what was not sent: the counts add up again, the writes go next time
			// unless a newer one of the same kind and subject replaced them.
			for (int i = 0; i < counts.size(); i++) {
				FleetStore.DomainCounts sent = counts.get(i);
				Link link = this.links.get(sent.domain());
				if (link != null) {
					link.giveBack(sent);
				}
			}
			requeue(writes);
			if (!Boolean.FALSE.equals(this.connected)) {
				// Alone now: no pod could win a lease for this one, so a domain the fleet
				// held open must not stay shut to it; the fleet's state is applied again,
				// whole, when the store is back.
				this.links.values().forEach(Link::leave);
			}
			connected(false, ex);
			return;
		}
		try {
			apply(view);
			connected(true, null);
		}
		catch (RuntimeException ex) {
			// A store's garbage never stops the loop.
			logger.warn("Fleet state could not be applied", ex);
		}
	}

	private List<Pending> drain() {
		synchronized (this.pending) {
			List<Pending> writes = new ArrayList<>(this.pending.values());
			this.pending.clear();
			return writes;
		}
	}

	private void requeue(List<Pending> writes) {
		synchronized (this.pending) {
			LinkedHashMap<String, Pending> newer = new LinkedHashMap<>(this.pending);
			this.pending.clear();
			for (Pending write : writes) {
				if (!newer.containsKey(write.key())) {
					this.pending.put(write.key(), write);
				}
			}
			this.pending.putAll(newer);
		}
	}

	private boolean isPending(Write.Kind kind, String subject) {
		synchronized (this.pending) {
			return this.pending.containsKey(kind + " " + subject);
		}
	}

	private void apply(FleetStore.View view) {
		// The store's clock and this pod's differ: every end is moved by their offset.
		long offset = this.clock.millis() - view.serverMillis();
		Map<String, FleetState.Domain> domains = new TreeMap<>();
		for (DomainView domain : view.domains()) {
			Link link = this.links.get(domain.domain());
			if (link != null) {
				link.apply(domain, offset);
			}
			domains.put(domain.domain(), new FleetState.Domain(domain.status(), domain.calls(), domain.failures(),
					domain.slow(), domain.openings(), domain.prober(), domain.reason()));
		}
		this.domains = Collections.unmodifiableMap(domains);
		if (this.knownOperation >= 0) {
			for (Operation operation : view.operations()) {
				if (operation.sequence() > this.knownOperation) {
					lift(operation);
				}
			}
		}
		this.knownOperation = view.operation();
		for (Hold hold : view.holds()) {
			mirror(hold, offset);
		}
		view.chains().forEach((name, targets) -> {
			List<String> current = this.registry.chains().get(name);
			// A local edit not yet sent is newer than what the store holds.
			if (current != null && !current.equals(targets) && !isPending(Write.Kind.CHAIN, name)) {
				try {
					this.registry.replaceChain(name, targets);
				}
				catch (IllegalArgumentException ex) {
					logger.warn("Fleet chain '{}' not applied: {}", name, ex.getMessage());
				}
			}
		});
		applyRules(view.rules());
		this.lastSync = this.clock.instant();
	}

	private void applyRules(@Nullable String encoded) {
		// An edit of this pod's not yet sent is newer than what the store holds.
		if (this.rules == null || encoded == null || isPending(Write.Kind.RULES, "rules")) {
			return;
		}
		try {
			List<ClassificationRule> fleetRules = RuleCodec.decode(encoded);
			if (!fleetRules.equals(this.rules.rules())) {
				this.rules.replace(fleetRules, SOURCE);
			}
		}
		catch (IllegalArgumentException ex) {
			logger.warn("Fleet classification rules not applied: {}", ex.getMessage());
		}
	}

	private void lift(Operation operation) {
		switch (operation.kind()) {
			case RELEASE -> this.gate.release(operation.subject());
			case UNPARK -> this.accounts.unpark(operation.subject());
			case UNLOCK -> this.accounts.unlock(operation.subject());
			default -> logger.debug("Unknown fleet operation {}", operation);
		}
	}

	private void mirror(Hold hold, long offset) {
		long until = hold.untilMillis() + offset;
		switch (hold.kind()) {
			case GATE -> {
				if (!isPending(Write.Kind.RELEASE, hold.subject())) {
					long jitter = (long) (this.random.getAsDouble() * this.settings.gateJitter().toMillis());
					this.gate.mirror(hold.subject(), until + jitter, hold.reason());
				}
			}
			case PARK -> {
				if (!isPending(Write.Kind.UNPARK, hold.subject())) {
					this.accounts.mirrorPark(hold.subject(), until, hold.reason());
				}
			}
			case LOCK -> {
				if (!isPending(Write.Kind.UNLOCK, hold.subject())) {
					this.accounts.mirrorLock(hold.subject(), until, hold.reason());
				}
			}
			default -> logger.debug("Unknown fleet hold {}", hold);
		}
	}

	private void connected(boolean now, @Nullable Exception cause) {
		Boolean was = this.connected;
		this.connected = now;
		if (was == null || was != now) {
			if (now) {
				this.events.publish(StateChange.Kind.FLEET_CONNECTED, this.settings.namespace(),
						"pod " + this.pod + " shares state with the fleet", null);
			}
			else {
				// The exception's type only: a store's message may name its address.
				String why = (cause != null) ? cause.getClass().getSimpleName() : "unknown";
				this.events.publish(StateChange.Kind.FLEET_DISCONNECTED, this.settings.namespace(),
						"pod " + this.pod + " lost the fleet's store (" + why + "), deciding alone until it is back",
						null);
			}
		}
	}

	/** A write waiting to be sent. */
	private record Pending(Write.Kind kind, String subject, String value, long number) {

		String key() {
			return this.kind + " " + this.subject;
		}

		/** A hold's end becomes what is left of it when sent. */
		Write toWrite(long now) {
			return switch (this.kind) {
				case GATE, PARK, LOCK -> new Write(this.kind, this.subject, this.value, Math.max(0, this.number - now));
				default -> new Write(this.kind, this.subject, this.value, this.number);
			};
		}

	}

	/** One failure domain's link: counts this pod's outcomes, follows the fleet. */
	private final class Link implements SharedOutcomes {

		private final Breaker breaker;

		/** The domain's spend, or {@code null} when it is not judged. */
		private final @Nullable DomainSpend spend;

		/** What was taken of the spend for the sync under way. */
		private DomainSpend.@Nullable Unsent sentSpend;

		private final LongAdder calls = new LongAdder();

		private final LongAdder failures = new LongAdder();

		private final LongAdder slow = new LongAdder();

		/** The fleet's generation last followed; {@code -1} before the first. */
		private long generation = -1;

		/** The generation the granted trial probes. */
		private volatile long trialGeneration;

		private long grantedAtMillis;

		Link(Breaker breaker, @Nullable DomainSpend spend) {
			this.breaker = breaker;
			this.spend = spend;
		}

		@Override
		public void record(boolean failure, boolean slow) {
			this.calls.increment();
			if (failure) {
				this.failures.increment();
			}
			if (slow) {
				this.slow.increment();
			}
		}

		@Override
		public void trialEnded(boolean closed) {
			command(Write.Kind.TRIAL, this.breaker.domain(), closed ? "ok" : "failed", this.trialGeneration);
		}

		FleetStore.DomainCounts counts(long now) {
			// A lease won but unused goes back, so that another pod may probe: after two
			// sync intervals, or twice the time this pod takes to call again when it
			// calls
			// more rarely (a pod calling every 8 s would otherwise never keep one), never
			// beyond the lease itself.
			long patience = Math.min(Math.max(2 * settingsInterval(), 2 * this.breaker.demandGapMillis()),
					FleetSync.this.settings.probeLease().toMillis());
			if (this.breaker.isTrialGranted() && now - this.grantedAtMillis > patience && this.breaker.revokeTrial()) {
				command(Write.Kind.UNPROBE, this.breaker.domain(), "", 0);
			}
			boolean wantsProbe = this.breaker.takeDemand() && this.breaker.isFleetHeld()
					&& !this.breaker.isTrialGranted();
			DomainSpend.Unsent spent = (this.spend != null) ? this.spend.takeUnsent() : null;
			this.sentSpend = spent;
			return new FleetStore.DomainCounts(this.breaker.domain(), this.calls.sumThenReset(),
					this.failures.sumThenReset(), this.slow.sumThenReset(), this.breaker.settings(),
					FleetSync.this.settings.probeInterval(), wantsProbe, FleetSync.this.settings.probeLease(),
					(spent != null) ? spent.window() : -1, (spent != null) ? spent.windowMillis() : 0,
					(spent != null) ? spent.calls() : 0, (spent != null) ? spent.spend() : 0);
		}

		void leave() {
			this.generation = -1;
			this.breaker.leaveFleet();
		}

		void giveBack(FleetStore.DomainCounts counts) {
			this.calls.add(counts.calls());
			this.failures.add(counts.failures());
			this.slow.add(counts.slow());
			DomainSpend.Unsent spent = this.sentSpend;
			if (this.spend != null && spent != null) {
				this.spend.giveBack(spent);
			}
			this.sentSpend = null;
		}

		void apply(DomainView view, long offset) {
			if (view.generation() != this.generation) {
				// A first view (a new pod, or the store back) tells a state, not a
				// change.
				boolean changed = this.generation >= 0;
				this.generation = view.generation();
				switch (view.status()) {
					case "open" -> this.breaker.followOpen(view.untilMillis() + offset, view.reason());
					case "closed" -> {
						this.breaker.followClosed(view.reason());
						if (changed && this.spend != null && OPERATOR.equals(view.reason())) {
							// An operator closed it on some pod just now, accepting its
							// spend.
							this.spend.forget();
						}
					}
					case "forced-open" -> this.breaker.followForcedOpen();
					case "disabled" -> this.breaker.followDisabled();
					default -> logger.debug("Unknown fleet breaker status '{}'", view.status());
				}
			}
			this.sentSpend = null;
			if (this.spend != null && view.spendWindow() >= 0) {
				this.spend.follow(view.spendWindow(), view.spendCalls(), view.spend());
			}
			if (view.probeGranted()) {
				this.trialGeneration = view.generation();
				this.grantedAtMillis = FleetSync.this.clock.millis();
				this.breaker.grantTrial();
			}
		}

	}

	private long settingsInterval() {
		return this.settings.syncInterval().toMillis();
	}

	private void command(Write.Kind kind, String subject, String value, long number) {
		synchronized (this.pending) {
			queue(new Pending(kind, subject, value, number));
		}
		trigger();
	}

}
