package io.github.llmresilience.test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP server on a random loopback port that answers like an LLM provider: each
 * simulated target is a path prefix ({@code /primary/...}) with its own script of
 * answers, and every request is counted.
 */
public final class FakeProvider implements AutoCloseable {

	static {
		// Without it the JDK server's separate header and body writes meet the client's
		// delayed ACK: 40 ms per request.
		System.setProperty("sun.net.httpserver.nodelay", "true");
	}

	private final HttpServer server;

	private final ExecutorService executor = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "fake-provider");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, IntFunction<Reply>> scripts = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();

	private final Map<String, List<String>> lastHeaders = new ConcurrentHashMap<>();

	private final Map<String, String> lastBodies = new ConcurrentHashMap<>();

	private final CountDownLatch released = new CountDownLatch(1);

	public FakeProvider() {
		try {
			this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		this.server.setExecutor(this.executor);
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	/** One answer: a status, headers and a body, or a hang (no answer at all). */
	public record Reply(int status, Map<String, String> headers, String body, boolean hangs, Stream stream) {

		public static Reply ok(String body) {
			return new Reply(200, Map.of("content-type", "application/json"), body, false, null);
		}

		public static Reply json(int status, String body) {
			return new Reply(status, Map.of("content-type", "application/json"), body, false, null);
		}

		public static Reply json(int status, Map<String, String> headers, String body) {
			Map<String, String> all = new LinkedHashMap<>(headers);
			all.putIfAbsent("content-type", "application/json");
			return new Reply(status, all, body, false, null);
		}

		public static Reply hang() {
			return new Reply(0, Map.of(), "", true, null);
		}

		/** A 200 event stream whose frames are written as the test sends them. */
		public static Reply stream(Stream stream) {
			return new Reply(200, Map.of("content-type", "text/event-stream"), "", false, stream);
		}

	}

	/**
	 * The frames of one streamed answer, written to the client as the test hands them
	 * over: a stream stalls simply by not being sent more.
	 */
	public static final class Stream {

		private static final String END = "\u0000end";

		private final BlockingQueue<String> frames = new LinkedBlockingQueue<>();

		/** Send one raw SSE frame, such as {@code "data: {...}\n\n"}. */
		public Stream send(String frame) {
			this.frames.add(frame);
			return this;
		}

		/** End the response. */
		public Stream end() {
			this.frames.add(END);
			return this;
		}

		String take() throws InterruptedException {
			return this.frames.poll(60, TimeUnit.SECONDS);
		}

	}

	private final List<Stream> streams = new CopyOnWriteArrayList<>();

	public static final String OPENAI_OK = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
			+ "\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}]}";

	public static final String OPENAI_503 = "{\"error\":{\"message\":\"The server is overloaded\",\"type\":\"server_error\","
			+ "\"param\":null,\"code\":null}}";

	/**
	 * What a degraded serving tier answers with a 200: nothing at all. The status says
	 * success; only a look at the body tells it is no answer.
	 */
	public static final String DEGRADED_EMPTY = "";

	/** What a degraded serving tier answers with a 200: the start of a completion. */
	public static final String DEGRADED_TRUNCATED = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
			+ "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assi";

	/** An OpenAI chat completion whose message says the given text. */
	public static String openAiAnswer(String content) {
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
				+ "\"message\":{\"role\":\"assistant\",\"content\":" + quote(content)
				+ "},\"finish_reason\":\"stop\"}]}";
	}

	/** An Anthropic message whose one text block says the given text. */
	public static String anthropicAnswer(String text) {
		return "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
				+ "\"text\":" + quote(text) + "}],\"stop_reason\":\"end_turn\"}";
	}

	/** A Gemini generateContent answer whose first candidate says the given text. */
	public static String geminiAnswer(String text) {
		return "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":" + quote(text)
				+ "}]},\"finishReason\":\"STOP\"}]}";
	}

	private static String quote(String text) {
		return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

	/** Answer every request of a target with the same reply. */
	public FakeProvider always(String target, Reply reply) {
		return script(target, (n) -> reply);
	}

	/** Answer the n-th request (from 1) of a target as the script says. */
	public FakeProvider script(String target, IntFunction<Reply> script) {
		this.scripts.put(target, script);
		return this;
	}

	public String baseUrl(String target) {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/" + target;
	}

	public int requests(String target) {
		AtomicInteger count = this.requests.get(target);
		return (count != null) ? count.get() : 0;
	}

	public int totalRequests() {
		return this.requests.values().stream().mapToInt(AtomicInteger::get).sum();
	}

	public void resetCounts() {
		this.requests.clear();
	}

	/** A header of the last request a target received. */
	public List<String> lastHeader(String target, String name) {
		return this.lastHeaders.get(target + "|" + name.toLowerCase(Locale.ROOT));
	}

	/** The body of the last request a target received, or {@code null}. */
	public String lastBody(String target) {
		return this.lastBodies.get(target);
	}

	private void handle(HttpExchange exchange) throws IOException {
		String path = exchange.getRequestURI().getPath();
		String target = path.substring(1).split("/", 2)[0];
		int number = this.requests.computeIfAbsent(target, (key) -> new AtomicInteger()).incrementAndGet();
		exchange.getRequestHeaders()
			.forEach((name, values) -> this.lastHeaders.put(target + "|" + name.toLowerCase(Locale.ROOT), values));
		this.lastBodies.put(target, new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
		IntFunction<Reply> script = this.scripts.get(target);
		Reply reply = (script != null) ? script.apply(number) : Reply.json(404, "{\"error\":\"no script\"}");
		if (reply.stream() != null) {
			this.streams.add(reply.stream());
			reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
			exchange.sendResponseHeaders(200, 0);
			try (OutputStream out = exchange.getResponseBody()) {
				while (true) {
					String frame = reply.stream().take();
					if (frame == null || frame.equals(Stream.END)) {
						break;
					}
					out.write(frame.getBytes(StandardCharsets.UTF_8));
					out.flush();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (IOException ex) {
				// The client went away (cancelled or timed out): nothing more to send.
			}
			return;
		}
		if (reply.hangs()) {
			try {
				this.released.await(60, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			exchange.close();
			return;
		}
		byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
		reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
		exchange.sendResponseHeaders(reply.status(), (body.length == 0) ? -1 : body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	@Override
	public void close() {
		this.released.countDown();
		this.streams.forEach(Stream::end);
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
