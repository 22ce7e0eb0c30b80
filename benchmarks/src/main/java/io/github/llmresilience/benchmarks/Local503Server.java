package io.github.llmresilience.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;

/**
 * A provider that is down: a loopback HTTP server answering every request at once with
 * OpenAI's 503 body. The cheapest failed attempt a real client can make.
 */
final class Local503Server implements AutoCloseable {

	static final byte[] BODY = ("{\"error\":{\"message\":\"The server is overloaded or not ready yet.\","
			+ "\"type\":\"server_error\",\"param\":null,\"code\":null}}")
		.getBytes(StandardCharsets.UTF_8);

	private final HttpServer server;

	private Local503Server(HttpServer server) {
		this.server = server;
	}

	static Local503Server start() throws IOException {
		// Without TCP_NODELAY every response waits ~40 ms for the client's delayed ACK,
		// and the baseline would measure that timer instead of a round trip.
		System.setProperty("sun.net.httpserver.nodelay", "true");
		HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		server.createContext("/", (exchange) -> {
			try (InputStream in = exchange.getRequestBody()) {
				in.readAllBytes();
			}
			exchange.getResponseHeaders().add("content-type", "application/json");
			exchange.sendResponseHeaders(503, BODY.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(BODY);
			}
		});
		server.start();
		return new Local503Server(server);
	}

	URI uri(String path) {
		InetSocketAddress address = this.server.getAddress();
		return URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort() + path);
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
