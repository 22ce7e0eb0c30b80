package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.codec.CodecException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.HandlerStrategies;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebInputException;

/**
 * A second WebFlux server in the sample app that plays the LLM providers: each simulated
 * target answers in its vendor's format, normally or as its mode says, after a latency
 * drawn from recorded real calls. All time comes from the injected {@link Clock} (mode
 * ends, rate-limit windows) and {@link Scheduler} (latencies).
 *
 * <ul>
 * <li>{@code POST /{target}/v1/chat/completions} and {@code POST /{target}/v1/messages}:
 * the chat APIs, plain or streamed ({@code "stream": true})</li>
 * <li>{@code GET /admin/targets}, {@code PUT /admin/targets/{name}/mode}: modes</li>
 * <li>{@code GET /admin/stats}, {@code POST /admin/reset}: what the targets received</li>
 * </ul>
 */
public final class ProviderSimulator implements SmartLifecycle {

	/**
	 * Error answers come back fast: a provider that fails does so before running the
	 * model.
	 */
	private static final int ERROR_LATENCY_DIVISOR = 10;

	/** A slow target takes this many times the normal latency. */
	private static final int SLOW_FACTOR = 8;

	/** How many times longer a {@code longer} target's answers are. */
	private static final int LONGER_FACTOR = 4;

	/** How many times later the first token of a {@code tail} target's slow share is. */
	private static final int TAIL_FACTOR = 10;

	private final SimulatedProviders providers;

	private final SimulatorProperties properties;

	private final Clock clock;

	private final Scheduler scheduler;

	private final HandlerStrategies strategies;

	private final LatencyDistribution latency;

	private final Map<SimulatedVendor, VendorSimulation> vendors = new EnumMap<>(SimulatedVendor.class);

	private volatile @Nullable DisposableServer server;

	public ProviderSimulator(SimulatedProviders providers, SimulatorProperties properties, JsonMapper json,
			HandlerStrategies strategies, Clock clock, Scheduler scheduler) {
		this(providers, properties, json, strategies, clock, scheduler, LatencyDistribution.REAL_CALLS);
	}

	/**
	 * A simulator whose answers take latencies from the given distribution: one without
	 * spread lets a test on virtual time tell each answer's time exactly.
	 */
	ProviderSimulator(SimulatedProviders providers, SimulatorProperties properties, JsonMapper json,
			HandlerStrategies strategies, Clock clock, Scheduler scheduler, LatencyDistribution latency) {
		this.latency = latency;
		this.providers = providers;
		this.properties = properties;
		this.strategies = strategies;
		this.clock = clock;
		this.scheduler = scheduler;
		this.vendors.put(SimulatedVendor.OPENAI, new OpenAiSimulation(json));
		this.vendors.put(SimulatedVendor.ANTHROPIC, new AnthropicSimulation(json));
	}

	/** The base URL of a simulated target, as a target's {@code base-url} names it. */
	public String baseUrl(String target) {
		this.providers.target(target);
		return "http://" + this.properties.getAddress() + ":" + port() + "/" + target;
	}

	/** The port the simulator listens on. */
	public int port() {
		DisposableServer running = this.server;
		return (running != null) ? running.port() : this.properties.getPort();
	}

	// Lifecycle -------------------------------------------------------------------------

	@Override
	public void start() {
		this.server = HttpServer.create()
			.host(this.properties.getAddress())
			.port(this.properties.getPort())
			.handle(new ReactorHttpHandlerAdapter(RouterFunctions.toHttpHandler(routes(), this.strategies)))
			.bindNow();
	}

	@Override
	public void stop() {
		DisposableServer running = this.server;
		if (running != null) {
			running.disposeNow(Duration.ofSeconds(5));
			this.server = null;
		}
	}

	@Override
	public boolean isRunning() {
		return this.server != null;
	}

	// Routes ----------------------------------------------------------------------------

	RouterFunction<ServerResponse> routes() {
		return RouterFunctions.route()
			.POST("/{target}" + SimulatedVendor.OPENAI.path(),
					(request) -> Mono.defer(() -> chat(request, SimulatedVendor.OPENAI)))
			.POST("/{target}" + SimulatedVendor.ANTHROPIC.path(),
					(request) -> Mono.defer(() -> chat(request, SimulatedVendor.ANTHROPIC)))
			.GET("/admin/targets", (request) -> ServerResponse.ok().bodyValue(targetViews()))
			.PUT("/admin/targets/{name}/mode", (request) -> Mono.defer(() -> changeMode(request)))
			.GET("/admin/stats", (request) -> ServerResponse.ok().bodyValue(this.providers.stats()))
			.POST("/admin/reset", (request) -> {
				this.providers.reset();
				return ServerResponse.ok().bodyValue(this.providers.stats());
			})
			.onError(SimulatedProviders.UnknownTarget.class, (ex, request) -> problem(404, ex))
			.onError((ex) -> ex instanceof IllegalArgumentException || ex instanceof ServerWebInputException
					|| ex instanceof CodecException, (ex, request) -> problem(400, ex))
			.build();
	}

	private static Mono<ServerResponse> problem(int status, Throwable ex) {
		String message = (ex instanceof ServerWebInputException input && input.getReason() != null) ? input.getReason()
				: ex.getMessage();
		return ServerResponse.status(status).bodyValue(Map.of("error", String.valueOf(message)));
	}

	private Mono<ServerResponse> changeMode(ServerRequest request) {
		SimulatedTarget target = this.providers.target(request.pathVariable("name"));
		return request.bodyToMono(ModeRequest.class)
			.switchIfEmpty(Mono.error(() -> new IllegalArgumentException(
					"A JSON body is required, such as {\"mode\": \"outage\", \"seconds\": 20}")))
			.flatMap((body) -> {
				target.mode(body.toSetting(this.clock.instant()));
				return ServerResponse.ok().bodyValue(targetViews().get(target.name()));
			});
	}

	private Map<String, TargetView> targetViews() {
		Instant now = this.clock.instant();
		Map<String, TargetView> views = new LinkedHashMap<>();
		for (SimulatedTarget target : this.providers.targets()) {
			views.put(target.name(), new TargetView(target.vendor().id(),
					baseUrl(target.name()) + target.vendor().path(), target.mode(now)));
		}
		return views;
	}

	/**
	 * A simulated target as the admin API shows it.
	 *
	 * @param vendor the format it speaks
	 * @param url where its chat endpoint is
	 * @param mode its mode
	 */
	record TargetView(String vendor, String url, ModeSetting mode) {

	}

	// The chat APIs ---------------------------------------------------------------------

	private Mono<ServerResponse> chat(ServerRequest request, SimulatedVendor expected) {
		SimulatedTarget target = this.providers.target(request.pathVariable("target"));
		if (target.vendor() != expected) {
			return ServerResponse.notFound().build();
		}
		return request.bodyToMono(String.class).defaultIfEmpty("").flatMap((body) -> answer(request, target, body));
	}

	private Mono<ServerResponse> answer(ServerRequest request, SimulatedTarget target, String body) {
		VendorSimulation vendor = this.vendors.get(target.vendor());
		Instant now = this.clock.instant();
		ModeSetting setting = target.mode(now);
		Mode mode = setting.mode();
		Duration latency = this.latency.sample(ThreadLocalRandom.current(), this.properties.getLatencyScale());
		Duration errorLatency = latency.dividedBy(ERROR_LATENCY_DIVISOR);
		Prompt prompt;
		Reply rejected = null;
		try {
			prompt = vendor.read(body);
			if (!prompt.fitsContext()) {
				rejected = vendor.contextTooLong(prompt);
			}
		}
		catch (RejectedRequest ex) {
			prompt = new Prompt(target.vendor() == SimulatedVendor.OPENAI ? "gpt-4o" : "claude-sonnet", "", false);
			rejected = ex.reply();
		}
		// A rate-limited target counts every request, and says so before anything else.
		RequestLimit limit = target.limit();
		RequestLimit.Take take = (limit != null) ? limit.take() : null;
		Map<String, String> limitHeaders = (take != null)
				? vendor.requestLimitHeaders(limit.perMinute(), take.remaining(), take.untilFull(), now) : Map.of();
		if (take != null && !take.granted()) {
			return send(target, mode,
					vendor.rateLimited(prompt, take.retryAfterSeconds(), now).withHeaders(limitHeaders), errorLatency,
					now);
		}
		// A provider that is down, shedding load or limiting this account says so before
		// it reads the request; only a provider that runs the model can reject it.
		ServingSlots.Ticket ticket = null;
		boolean slowStart = false;
		switch (mode) {
			case OUTAGE:
				return send(target, mode, vendor.outage(), errorLatency, now);
			case OVERLOADED:
				return overloaded(target, mode, vendor, errorLatency, now);
			case BROWNOUT:
				ticket = target.slots().arrive(setting.capacity(), ThreadLocalRandom.current().nextDouble());
				if (ticket.shed()) {
					return overloaded(target, mode, vendor, errorLatency, now);
				}
				break;
			case TAIL:
				slowStart = ThreadLocalRandom.current().nextDouble() < setting.probability();
				break;
			case THROTTLE:
				return send(target, mode, vendor.rateLimited(prompt, setting.retryAfterSeconds(), now), errorLatency,
						now);
			case QUOTA:
				return send(target, mode, vendor.quotaExhausted(now), errorLatency, now);
			case HANG:
				target.received(mode, 0, now);
				return Mono.never();
			case DEGRADED_TIER: {
				// Half of the answers empty, half cut in the middle: 200 either way.
				String whole = vendor.answer(prompt, "degraded", now).body();
				String cut = ThreadLocalRandom.current().nextBoolean() ? "" : whole.substring(0, whole.length() / 2);
				return send(target, mode, Reply.json(200, cut), latency, now);
			}
			case FLAKY:
				if (ThreadLocalRandom.current().nextDouble() < setting.probability()) {
					return send(target, mode, vendor.serverError(), errorLatency, now);
				}
				break;
			default:
				break;
		}
		if (rejected != null) {
			return held(target, ticket, send(target, mode, rejected, errorLatency, now), false);
		}
		boolean refusal = mode == Mode.CONTENT_FILTER;
		Duration modelTime = (mode == Mode.SLOW) ? latency.multipliedBy(SLOW_FACTOR) : latency;
		// The first event waits for the model to start; each token then takes its share
		// of the rest of the answer's time.
		Duration firstToken = modelTime.multipliedBy(4).dividedBy(10);
		Duration rest = modelTime.minus(firstToken);
		if (slowStart) {
			firstToken = firstToken.multipliedBy(TAIL_FACTOR);
			modelTime = firstToken.plus(rest);
		}
		String text = "This is a simulated answer from " + target.name() + " (" + prompt.model() + ") to: "
				+ abbreviate(prompt.question());
		if (mode == Mode.LONGER) {
			// The usage each vendor reports counts the answer's words, so it grows alike;
			// the latency stays, so that only the spend tells.
			text = String.join(" ", Collections.nCopies(LONGER_FACTOR, text));
		}
		if (prompt.stream()) {
			return held(target, ticket,
					stream(request, target, vendor, prompt, tokens(text), refusal, mode, firstToken, rest, now, ticket),
					true);
		}
		Reply reply = refusal ? vendor.refusal(prompt, now) : vendor.answer(prompt, text, now);
		if (target.vendor() == SimulatedVendor.OPENAI) {
			// OpenAI reports its own processing time: the model's, without the network.
			reply = reply.withHeader("openai-processing-ms", Long.toString(modelTime.toMillis()));
		}
		return held(target, ticket, send(target, mode, reply.withHeaders(limitHeaders), modelTime, now), false);
	}

	/** The vendor's overload answer, counted as one. */
	private Mono<ServerResponse> overloaded(SimulatedTarget target, Mode mode, VendorSimulation vendor,
			Duration errorLatency, Instant now) {
		target.overloaded();
		return send(target, mode, vendor.overloaded(), errorLatency, now);
	}

	/**
	 * The answer of a request that holds a brownout target's slot, once its turn has
	 * come; its slot is freed when the answer ends, or when the client gives up. Without
	 * a ticket (any other mode), the answer itself.
	 * @param streaming whether the answer is a stream, which frees the slot when its body
	 * ends rather than when its headers go out
	 */
	private Mono<ServerResponse> held(SimulatedTarget target, ServingSlots.@Nullable Ticket ticket,
			Mono<ServerResponse> answer, boolean streaming) {
		if (ticket == null) {
			return answer;
		}
		ServingSlots slots = target.slots();
		Mono<ServerResponse> afterTurn = ticket.turn().then(answer);
		if (!streaming) {
			return afterTurn.doFinally((signal) -> slots.leave(ticket));
		}
		return afterTurn.doOnCancel(() -> slots.leave(ticket)).doOnError((ex) -> slots.leave(ticket));
	}

	private Mono<ServerResponse> send(SimulatedTarget target, Mode mode, Reply reply, Duration latency, Instant now) {
		target.received(mode, reply.status(), now);
		return Mono.delay(latency, this.scheduler).then(Mono.defer(() -> {
			String retryAfter = reply.headers().get("retry-after");
			if (reply.status() == 429 && retryAfter != null) {
				target.askedToWaitUntil(this.clock.instant().plusSeconds(Long.parseLong(retryAfter)));
			}
			return ServerResponse.status(reply.status())
				.headers((headers) -> reply.headers().forEach(headers::set))
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(reply.body());
		}));
	}

	/**
	 * @param firstToken the wait for the first event
	 * @param rest the time of the answer's tokens after it, shared among them
	 * @param ticket the brownout slot the stream holds until its body ends, or
	 * {@code null}
	 */
	private Mono<ServerResponse> stream(ServerRequest request, SimulatedTarget target, VendorSimulation vendor,
			Prompt prompt, List<String> tokens, boolean refusal, Mode mode, Duration firstToken, Duration rest,
			Instant now, ServingSlots.@Nullable Ticket ticket) {
		target.received(mode, 200, now);
		List<SseFrame> frames = vendor.stream(prompt, tokens, refusal, now);
		Duration perToken = rest.dividedBy(Math.max(1, tokens.size()));
		int dropAfterTokens = (mode == Mode.MIDSTREAM_DROP) ? Math.max(1, tokens.size() / 2) : Integer.MAX_VALUE;
		List<Mono<ServerSentEvent<String>>> events = new ArrayList<>();
		int sentTokens = 0;
		for (int i = 0; i < frames.size() && sentTokens < dropAfterTokens; i++) {
			SseFrame frame = frames.get(i);
			Duration wait = (i == 0) ? firstToken : frame.token() ? perToken : Duration.ZERO;
			if (frame.token()) {
				sentTokens++;
			}
			ServerSentEvent.Builder<String> event = ServerSentEvent.builder(frame.data());
			if (frame.event() != null) {
				event.event(frame.event());
			}
			ServerSentEvent<String> built = event.build();
			events.add(wait.isZero() ? Mono.just(built) : Mono.delay(wait, this.scheduler).thenReturn(built));
		}
		Flux<ServerSentEvent<String>> body = Flux.concat(events);
		if (sentTokens >= dropAfterTokens) {
			body = body.concatWith(drop(request, perToken));
		}
		if (ticket != null) {
			ServingSlots slots = target.slots();
			body = body.doFinally((signal) -> slots.leave(ticket));
		}
		return ServerResponse.ok()
			.contentType(MediaType.TEXT_EVENT_STREAM)
			.body(BodyInserters.fromServerSentEvents(body));
	}

	/**
	 * Close the connection under a stream that has started, as a provider's load balancer
	 * does when a node dies: the client sees the stream end without its last event.
	 */
	private Mono<ServerSentEvent<String>> drop(ServerRequest request, Duration afterFlush) {
		HttpServerResponse response = ServerHttpResponseDecorator.getNativeResponse(request.exchange().getResponse());
		return Mono.delay(afterFlush.plusMillis(50), this.scheduler)
			.then(Mono.fromRunnable(() -> response.withConnection(Connection::dispose)))
			.then(Mono.never());
	}

	private static List<String> tokens(String text) {
		List<String> tokens = new ArrayList<>();
		int start = 0;
		for (int i = 0; i < text.length(); i++) {
			if (text.charAt(i) == ' ') {
				tokens.add(text.substring(start, i + 1));
				start = i + 1;
			}
		}
		if (start < text.length()) {
			tokens.add(text.substring(start));
		}
		return tokens;
	}

	private static String abbreviate(String question) {
		return (question.length() <= 80) ? question : question.substring(0, 77) + "...";
	}

}
