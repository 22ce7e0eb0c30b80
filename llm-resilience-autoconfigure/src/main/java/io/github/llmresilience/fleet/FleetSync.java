package io.github.llmresilience.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;
import java.util.regex.Pattern;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.breaker.SharedOutcomes;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.fleet.FleetStore.Batch;
import io.github.llmresilience.fleet.FleetStore.Counts;
import io.github.llmresilience.fleet.FleetStore.DomainView;
import io.github.llmresilience.fleet.FleetStore.Hold;
import io.github.llmresilience.fleet.FleetStore.Operation;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.fleet.Outbox.Pending;
import io.github.llmresilience.pool.Pools;
import io.github.llmresilience.spend.DomainSpend;
import io.github.llmresilience.spend.Spend;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
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
 * own state, keeps its counts and writes, and sends them when the store is back. A sync
 * the pod stopped waiting for may still run at the store (a stalled server runs what was
 * queued on its connection when it resumes), so nothing sent may count twice: counts go
 * in numbered {@link Batch batches} the store applies once and the pod sends again until
 * an answer, timely or late, acknowledges them; ends are absolute on the store's clock;
 * and while a sync is still out, no other is sent behind it.
 *
 * <p>
 * A store that lost its state (an empty restart, {@code FLUSHALL}, eviction) answers a
 * new epoch, or a domain's generation goes backwards: the pod then follows nothing it
 * says about what was lost, and publishes again what it holds (operator statuses,
 * openings, gates, parks, locks, edited chains and rules).
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class FleetSync implements Fleet {

	private static final Logger logger = LoggerFactory.getLogger(FleetSync.class);

	/**
	 * A sync still out after this many command timeouts is given up and another sent (its
	 * script may still run: it is idempotent).
	 */
	static final int ABANDON_AFTER_TIMEOUTS = 10;

	/** The longest the first sync (which may make the connection) is waited for. */
	static final long FIRST_ANSWER_MILLIS = 10_000;

	/** The reason the fleet gives a breaker status an operator set. */
	private static final String OPERATOR = "by an operator";

	/** Where this pod's own edits are told from the fleet's. */
	static final String SOURCE = "fleet";

	/**
	 * An error the store's server answered whose text names no address and no secret
	 * ({@code MOVED} and {@code ASK} name a node's address: told by their type only).
	 */
	private static final Pattern SERVER_ERROR = Pattern.compile(
			"^(NOPERM|NOAUTH|WRONGPASS|OOM|ERR|WRONGTYPE|BUSY|NOSCRIPT|READONLY|MASTERDOWN|LOADING|CROSSSLOT|CLUSTERDOWN|TRYAGAIN)\\b.*",
			Pattern.DOTALL);

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

	private final DoubleSupplier random;

	private final String pod;

	/** This run of the pod: the store remembers the batches it applied under it. */
	private final String incarnation = UUID.randomUUID().toString().substring(0, 8);

	/** How recently a pod must have synced to hold a lease; also a kept lease's life. */
	private final Duration liveness;

	private final Map<String, Link> links = new ConcurrentHashMap<>();

	/** What goes to the store: queued writes, batches not yet acknowledged. */
	private final Outbox outbox = new Outbox();

	private final AtomicBoolean triggered = new AtomicBoolean();

	private final ScheduledExecutorService executor;

	/** The last operator command applied; {@code -1} until the first sync. */
	private long knownOperation = -1;

	/** The store's epoch last seen; empty until the first sync. */
	private String epoch = "";

	/**
	 * This pod's clock minus the store's, from the last answer; {@code null} before the
	 * first. Ends go to the store on its clock, so a hold is never sent before it is
	 * known.
	 */
	private volatile @Nullable Long offsetMillis;

	/** The sync still out at the store, or {@code null}. */
	private @Nullable CompletableFuture<FleetStore.View> inFlight;

	private long inFlightSinceMillis;

	/**
	 * Each mirrored gate's jitter, drawn once per gate and end: subject to (end, jitter).
	 */
	private final Map<String, long[]> jitters = new HashMap<>();

	/** Whether the rules were edited since start, here or by the fleet. */
	private volatile boolean rulesEdited;

	/** Guards the transitions of {@link #connected}. */
	private final Object connection = new Object();

	/** {@code null} before the first sync. */
	private volatile @Nullable Boolean connected;

	private volatile @Nullable Instant lastSync;

	private volatile Map<String, FleetState.Domain> domains = Map.of();

	private volatile boolean closed;

	/** Each domain's spend, summed across the fleet per window; {@code null} for none. */
	private @Nullable Spend spend;

	/** The pools sized by the fleet, or {@code null}. */
	private volatile @Nullable Pools pools;

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
		this.liveness = liveness(settings);
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "llm-resilience-fleet-" + settings.namespace());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * How long a pod may go without a sync and still count as alive for its lease: three
	 * sync intervals, at least two command timeouts (one slow sync is no death) and a
	 * second, never beyond the probe lease.
	 */
	static Duration liveness(FleetSettings settings) {
		Duration liveness = settings.syncInterval().multipliedBy(3);
		Duration timeouts = settings.commandTimeout().multipliedBy(2);
		if (timeouts.compareTo(liveness) > 0) {
			liveness = timeouts;
		}
		if (liveness.compareTo(Duration.ofSeconds(1)) < 0) {
			liveness = Duration.ofSeconds(1);
		}
		return (liveness.compareTo(settings.probeLease()) > 0) ? settings.probeLease() : liveness;
	}

	/**
	 * Sum each domain's spend across the fleet, window by window: set before
	 * {@link #start()}.
	 */
	public void shareSpend(Spend spend) {
		this.spend = spend;
	}

	/**
	 * Give each pod its part of every quota scope's capacity, by the number of pods the
	 * store counts alive: set before {@link #start()}. The buckets stay in the pod, so
	 * that no call waits on the store.
	 */
	public void sharePools(Pools pools) {
		this.pools = pools;
	}

	/**
	 * Link every breaker, sync once on the fleet's thread and wait for it at most the
	 * store's command timeout (so that a new pod knows the fleet's gates, parks, locks
	 * and open domains before its first call when the store answers, and starts
	 * unconnected when it does not), then sync every interval and on every hint.
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
				this.rulesEdited = true;
				if (!SOURCE.equals(edit.source())) {
					command(Write.Kind.RULES, "rules", RuleCodec.encode(edit.rules()), 0);
				}
			});
		}
		Future<?> first = this.executor.submit(() -> {
			syncLoop();
			listen();
		});
		try {
			// A store that has not answered within the command timeout (a stalled server,
			// a connection still being made) does not hold the application's start: the
			// pod starts on its own state and the fleet's thread goes on waiting.
			first.get(this.settings.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			logger.info("Fleet store {} not answered within {}: starting on this pod's own state, the fleet's "
					+ "thread goes on connecting", this.settings.namespace(), this.settings.commandTimeout());
		}
		catch (ExecutionException ex) {
			logger.warn("First fleet sync failed", ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (periodic) {
			long interval = this.settings.syncInterval().toNanos();
			this.executor.scheduleWithFixedDelay(this::syncLoop, interval, interval, TimeUnit.NANOSECONDS);
		}
	}

	private void listen() {
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
		if (this.outbox.hold(new Pending(kind, subject, clean(reason), until.toEpochMilli()))) {
			trigger();
		}
	}

	@Override
	public void command(Write.Kind kind, String subject, String value) {
		command(kind, subject, clean(value), 0);
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
		long now = this.clock.millis();
		CompletableFuture<FleetStore.View> previous = this.inFlight;
		if (previous != null && !previous.isDone()) {
			long abandonAfter = ABANDON_AFTER_TIMEOUTS * this.settings.commandTimeout().toMillis();
			if (now - this.inFlightSinceMillis < abandonAfter) {
				// The store has not run the last sync yet: another would only queue
				// behind
				// it. What this pod counts meanwhile goes in the next batch.
				return;
			}
			previous.cancel(true);
		}
		Long offset = this.offsetMillis;
		closeBatch(now, offset);
		// Holds go on the store's clock: none before its offset is known.
		List<Pending> writes = this.outbox.drain(offset != null);
		List<FleetStore.Domain> domains = new ArrayList<>(this.links.size());
		for (Link link : this.links.values()) {
			domains.add(link.domain(now));
		}
		List<Batch> batches = this.outbox.batches();
		CompletableFuture<FleetStore.View> answer;
		try {
			List<Write> sent = new ArrayList<>(writes.size());
			for (Pending write : writes) {
				sent.add(write.toWrite((offset != null) ? offset : 0));
			}
			answer = this.store.sync(new FleetStore.Sync(this.pod, this.incarnation, this.epoch, this.knownOperation,
					this.settings.window(), this.liveness, domains, batches, sent));
			if (answer == null) {
				throw new IllegalStateException("The fleet store answered no future");
			}
		}
		catch (RuntimeException ex) {
			failed(writes, ex);
			return;
		}
		this.inFlight = answer;
		this.inFlightSinceMillis = now;
		// An answer that comes after this pod stopped waiting still says which batches
		// the store applied.
		answer.whenComplete((view, error) -> {
			if (view != null) {
				this.outbox.acknowledge(view.appliedBatch());
			}
		});
		FleetStore.View view;
		try {
			// The first answer may take a connection to be made (a cold one takes a JVM
			// more than a round trip): it has longer before the pod counts itself
			// disconnected. The application's start does not wait for it (see start).
			long wait = this.settings.commandTimeout().toMillis();
			if (offset == null) {
				wait = Math.max(wait, FIRST_ANSWER_MILLIS);
			}
			view = answer.get(wait, TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException | ExecutionException | CancellationException ex) {
			failed(writes, (ex instanceof ExecutionException) ? ex.getCause() : ex);
			return;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			failed(writes, ex);
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
		if (offset == null && this.outbox.hasWrites()) {
			// Holds waited for the store's clock: it is known now.
			trigger();
		}
	}

	/**
	 * Take what every link counted since the last batch into a new one, unless nothing
	 * was counted.
	 */
	private void closeBatch(long now, @Nullable Long offset) {
		List<Counts> counts = new ArrayList<>();
		for (Link link : this.links.values()) {
			Counts taken = link.take();
			if (taken != null) {
				counts.add(taken);
			}
		}
		this.outbox.batch(counts, (offset != null) ? now - offset : 0);
	}

	private void failed(List<Pending> writes, @Nullable Throwable cause) {
		// Keep the writes: they go next time unless a newer one of the same kind and
		// subject replaced them. The batches stay until acknowledged.
		this.outbox.requeue(writes);
		if (this.closed) {
			// Interrupted by the pod's own shutdown: no news.
			return;
		}
		if (!Boolean.FALSE.equals(this.connected)) {
			// Alone now: no pod could win a lease for this one, so a domain the fleet
			// held
			// open must not stay shut to it; the fleet's state is applied again, whole,
			// when the store is back.
			this.links.values().forEach(Link::leave);
		}
		connected(false, describe(cause));
	}

	/**
	 * The cause, told safely: an error the server answered (such as {@code NOPERM} when
	 * an ACL refuses a command of the script) in its own words, anything else by its
	 * type, whose message may name the store's address.
	 */
	static String describe(@Nullable Throwable cause) {
		for (Throwable t = cause; t != null; t = t.getCause()) {
			String message = t.getMessage();
			if (message != null && SERVER_ERROR.matcher(message).matches()) {
				String line = message.lines().findFirst().orElse(message);
				return (line.length() > 300) ? line.substring(0, 300) : line;
			}
			if (t.getCause() == t) {
				break;
			}
		}
		if (cause instanceof TimeoutException) {
			return "no answer within the command timeout";
		}
		return (cause != null) ? cause.getClass().getSimpleName() : "unknown";
	}

	private void apply(FleetStore.View view) {
		// The store's clock and this pod's differ: every end is moved by their offset.
		long offset = this.clock.millis() - view.serverMillis();
		this.offsetMillis = offset;
		// A store that lost its state: a new epoch. A new pod takes the state as it is.
		boolean lost = !this.epoch.isEmpty() && !this.epoch.equals(view.epoch());
		if (lost) {
			this.events.publish(StateChange.Kind.FLEET_STATE_LOST, this.settings.namespace(), "pod " + this.pod
					+ " found the fleet's store emptied (a new epoch), publishing what it holds again", null);
		}
		this.epoch = view.epoch();
		Map<String, FleetState.Domain> domains = new TreeMap<>();
		for (DomainView domain : view.domains()) {
			Link link = this.links.get(domain.domain());
			if (link != null) {
				link.apply(domain, offset, lost);
			}
			domains.put(domain.domain(), new FleetState.Domain(domain.status(), domain.calls(), domain.failures(),
					domain.slow(), domain.openings(), domain.prober(), domain.reason()));
		}
		this.domains = Collections.unmodifiableMap(domains);
		if (this.knownOperation >= 0) {
			for (Operation operation : view.operations()) {
				// A store that lost its state sends every lift made since the loss: news
				// to this pod, to apply before it republishes what it holds.
				if (lost || operation.sequence() > this.knownOperation) {
					lift(operation);
				}
			}
		}
		this.knownOperation = view.operation();
		for (Hold hold : view.holds()) {
			mirror(hold, offset);
		}
		this.jitters.values().removeIf((jitter) -> jitter[0] < view.serverMillis());
		view.chains().forEach((name, targets) -> {
			List<String> current = this.registry.chains().get(name);
			// A local edit not yet sent is newer than what the store holds.
			if (current != null && !current.equals(targets) && !this.outbox.isQueued(Write.Kind.CHAIN, name)) {
				try {
					this.registry.replaceChain(name, targets);
				}
				catch (IllegalArgumentException ex) {
					logger.warn("Fleet chain '{}' not applied: {}", name, ex.getMessage());
				}
			}
		});
		applyRules(view.rules());
		if (lost) {
			republish();
		}
		Pools pools = this.pools;
		if (pools != null && view.pods() > 0) {
			pools.fleetSize(view.pods());
		}
		this.lastSync = this.clock.instant();
	}

	/**
	 * The store lost its state: publish again what this pod holds, as if it had just
	 * decided it (the store keeps the later end of every hold and opening, and an
	 * operator's status over an opening, so every pod may do this at once).
	 */
	private void republish() {
		long now = this.clock.millis();
		this.gate.gated().forEach((scope, until) -> hold(Write.Kind.GATE, scope, "rate limited, republished", until));
		for (Accounts.AccountStatus account : this.accounts.all()) {
			if (account.parkedUntil().toEpochMilli() > now) {
				String reason = account.parkReason();
				hold(Write.Kind.PARK, account.name(), (reason != null) ? reason : "parked", account.parkedUntil());
			}
			if (account.lockedUntil().toEpochMilli() > now) {
				String reason = account.lockReason();
				hold(Write.Kind.LOCK, account.name(), (reason != null) ? reason : "locked", account.lockedUntil());
			}
		}
		Map<String, List<String>> configured = this.registry.configuredChains();
		this.registry.chains().forEach((name, targets) -> {
			if (!targets.equals(configured.get(name))) {
				command(Write.Kind.CHAIN, name, String.join(",", targets), 0);
			}
		});
		ClassificationRules rules = this.rules;
		if (rules != null && this.rulesEdited) {
			command(Write.Kind.RULES, "rules", RuleCodec.encode(rules.rules()), 0);
		}
	}

	private void applyRules(@Nullable String encoded) {
		// An edit of this pod's not yet sent is newer than what the store holds.
		if (this.rules == null || encoded == null || this.outbox.isQueued(Write.Kind.RULES, "rules")) {
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
				if (!this.outbox.isQueued(Write.Kind.RELEASE, hold.subject())) {
					this.gate.mirror(hold.subject(), until + jitter(hold), hold.reason());
				}
			}
			case PARK -> {
				if (!this.outbox.isQueued(Write.Kind.UNPARK, hold.subject())) {
					this.accounts.mirrorPark(hold.subject(), until, hold.reason());
				}
			}
			case LOCK -> {
				if (!this.outbox.isQueued(Write.Kind.UNLOCK, hold.subject())) {
					this.accounts.mirrorLock(hold.subject(), until, hold.reason());
				}
			}
			default -> logger.debug("Unknown fleet hold {}", hold);
		}
	}

	/**
	 * A gate's jitter on this pod: drawn once for each end the fleet holds. Drawn at
	 * every sync, the later end would win each time and every pod's gate would creep to
	 * the largest jitter, ending together again.
	 */
	private long jitter(Hold hold) {
		long max = this.settings.gateJitter().toMillis();
		if (max <= 0) {
			return 0;
		}
		long[] jitter = this.jitters.get(hold.subject());
		if (jitter == null || jitter[0] != hold.untilMillis()) {
			double draw = this.random.getAsDouble();
			long millis = (draw >= 0 && draw < 1) ? (long) (draw * max) : 0;
			jitter = new long[] { hold.untilMillis(), millis };
			this.jitters.put(hold.subject(), jitter);
		}
		return jitter[1];
	}

	private void connected(boolean now, @Nullable String cause) {
		boolean changed;
		synchronized (this.connection) {
			Boolean was = this.connected;
			this.connected = now;
			changed = was == null || was != now;
		}
		if (changed) {
			if (now) {
				this.events.publish(StateChange.Kind.FLEET_CONNECTED, this.settings.namespace(),
						"pod " + this.pod + " shares state with the fleet", null);
			}
			else {
				this.events.publish(StateChange.Kind.FLEET_DISCONNECTED, this.settings.namespace(),
						"pod " + this.pod + " lost the fleet's store (" + cause + "), deciding alone until it is back",
						null);
			}
		}
	}

	/** One failure domain's link: counts this pod's outcomes, follows the fleet. */
	private final class Link implements SharedOutcomes {

		private final Breaker breaker;

		/** The domain's spend, or {@code null} when it is not judged. */
		private final @Nullable DomainSpend spend;

		private final LongAdder calls = new LongAdder();

		private final LongAdder failures = new LongAdder();

		private final LongAdder slow = new LongAdder();

		/** The fleet's generation last followed; {@code -1} before the first. */
		private long generation = -1;

		/** The generation the granted trial probes. */
		private volatile long trialGeneration;

		private long grantedAtMillis;

		/**
		 * The fleet's last passed trial seen (store clock); {@code -1} before the first.
		 */
		private long trialSeenMillis = -1;

		/**
		 * The spend window at the last take (its index and length), whose fleet sums the
		 * store answers; {@code null} when spend is not judged.
		 */
		private DomainSpend.@Nullable Unsent spendWindow;

		/** Why the fleet last changed the domain's status, for a republished opening. */
		private String reason = "";

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

		@Override
		public void opened() {
			command(Write.Kind.OPENED, this.breaker.domain(), clean("pod " + FleetSync.this.pod + "'s breaker opened"),
					0);
		}

		@Override
		public boolean leasesTrials() {
			return Boolean.TRUE.equals(FleetSync.this.connected);
		}

		/** What was counted since the last take, or {@code null} when nothing was. */
		@Nullable Counts take() {
			long calls = this.calls.sumThenReset();
			long failures = this.failures.sumThenReset();
			long slow = this.slow.sumThenReset();
			DomainSpend.Unsent spent = (this.spend != null) ? this.spend.takeUnsent() : null;
			this.spendWindow = spent;
			long spendCalls = (spent != null) ? spent.calls() : 0;
			if (calls == 0 && spendCalls == 0) {
				return null;
			}
			return new Counts(this.breaker.domain(), calls, failures, slow, (spent != null) ? spent.window() : -1,
					spendCalls, (spent != null) ? spent.spend() : 0, (spent != null) ? spent.expected() : 0);
		}

		FleetStore.Domain domain(long now) {
			long lease = FleetSync.this.settings.probeLease().toMillis();
			// A lease won but unused goes back, so that another pod may probe: after two
			// sync intervals, or twice the time this pod takes to call again when it
			// calls more rarely (a pod calling every 8 s would otherwise never keep one),
			// never beyond the lease itself.
			long patience = Math.min(Math.max(2 * settingsInterval(), 2 * this.breaker.demandGapMillis()), lease);
			if (this.breaker.isTrialGranted() && now - this.grantedAtMillis > patience && this.breaker.revokeTrial()) {
				command(Write.Kind.UNPROBE, this.breaker.domain(), "", 0);
			}
			boolean wantsProbe = this.breaker.takeDemand() && this.breaker.isFleetHeld()
					&& !this.breaker.isTrialGranted();
			// The store keeps the lease of a pod that says it holds it, for the liveness
			// at a time, and never beyond the probe lease from when it was won.
			boolean holdsProbe = this.breaker.isTrialGranted() && now - this.grantedAtMillis < lease;
			DomainSpend.Unsent window = this.spendWindow;
			return new FleetStore.Domain(this.breaker.domain(), this.breaker.settings(),
					FleetSync.this.settings.probeInterval(), wantsProbe, holdsProbe, FleetSync.this.liveness,
					(window != null) ? window.window() : -1, (window != null) ? window.windowMillis() : 0);
		}

		void leave() {
			this.generation = -1;
			this.breaker.leaveFleet();
		}

		void apply(DomainView view, long offset, boolean lost) {
			if (lost || (this.generation >= 0 && view.generation() < this.generation)) {
				// The store lost this domain's state: what it says now is not the fleet's
				// decision. Publish this pod's, and follow the next answer as a first.
				republish(offset);
				this.generation = -1;
				this.trialSeenMillis = -1;
				return;
			}
			if (view.generation() != this.generation) {
				// A first view (a new pod, or the store back) tells a state, not a
				// change.
				boolean changed = this.generation >= 0;
				this.generation = view.generation();
				this.reason = view.reason();
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
			else if ("closed".equals(view.status()) && this.trialSeenMillis >= 0
					&& view.trialMillis() > this.trialSeenMillis && this.breaker.isFleetHeld()
					&& !this.breaker.isTrialGranted() && this.breaker.state() == CircuitBreaker.State.OPEN) {
				// This pod's own breaker opened while the fleet's stayed closed, and
				// another such pod's trial has passed since: the domain answers again.
				this.breaker.followClosed("a trial on another pod passed");
			}
			this.trialSeenMillis = view.trialMillis();
			if (this.spend != null && view.spendWindow() >= 0) {
				this.spend.follow(view.spendWindow(), view.spendCalls(), view.spend(), view.spendExpected());
			}
			if (view.probeGranted() && !this.breaker.isTrialGranted()) {
				this.trialGeneration = view.generation();
				this.grantedAtMillis = FleetSync.this.clock.millis();
				this.breaker.grantTrial();
			}
		}

		/** This domain's state as this pod holds it, for a store that lost it. */
		private void republish(long offset) {
			String domain = this.breaker.domain();
			switch (this.breaker.state()) {
				case FORCED_OPEN -> command(Write.Kind.BREAKER, domain, "forced-open", 0);
				case DISABLED -> command(Write.Kind.BREAKER, domain, "disabled", 0);
				case OPEN -> {
					String why = this.reason.isEmpty() ? "open on pod " + FleetSync.this.pod : this.reason;
					hold(Write.Kind.OPEN, domain, why + " (republished)", this.breaker.availableAt());
				}
				default -> {
					// Closed or on trial: nothing this pod holds that the store must
					// keep.
				}
			}
		}

	}

	private long settingsInterval() {
		return this.settings.syncInterval().toMillis();
	}

	private void command(Write.Kind kind, String subject, String value, long number) {
		this.outbox.command(new Pending(kind, subject, value, number));
		trigger();
	}

}
