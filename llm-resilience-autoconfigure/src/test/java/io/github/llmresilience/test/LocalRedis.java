package io.github.llmresilience.test;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The Redis that {@code .ci/run} starts ({@code LLM_RESILIENCE_REDIS_URL}), and the Redis
 * programs that tests with a server of their own start: a test that cannot have them is
 * skipped, saying why.
 */
public final class LocalRedis {

	private LocalRedis() {
	}

	/** The CI Redis's URL, or skip the test when nothing answers there. */
	public static URI ciRedis() {
		URI uri = URI.create(System.getenv().getOrDefault("LLM_RESILIENCE_REDIS_URL", "redis://127.0.0.1:6379"));
		assumeThat(reachable(uri.getHost(), port(uri))).as("a Redis server at %s (LLM_RESILIENCE_REDIS_URL)", uri)
			.isTrue();
		return uri;
	}

	public static int port(URI uri) {
		return (uri.getPort() > 0) ? uri.getPort() : 6379;
	}

	/** Whether something accepts connections there. */
	public static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Skip the test unless every program is on the PATH ({@code .ci/run} installs them).
	 */
	public static void assumeOnPath(String... programs) {
		for (String program : programs) {
			assumeThat(onPath(program)).as("%s on the PATH (.ci/run installs it)", program).isTrue();
		}
	}

	/** Whether the program is on the PATH. */
	public static boolean onPath(String name) {
		for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
			if (new File(dir, name).canExecute()) {
				return true;
			}
		}
		return false;
	}

}
