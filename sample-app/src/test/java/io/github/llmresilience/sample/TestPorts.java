package io.github.llmresilience.sample;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free port for a test's own server (the simulator, an application started on a port
 * the test names), taken below the ephemeral range that Linux (32768 to 60999), Docker's
 * published container ports and every server bound to port 0 draw from: a port found free
 * there may be taken by one of those before the test's server binds it. With the two Boot
 * lines' builds side by side in {@code .ci/run}, a simulator port found free by
 * {@code TestSocketUtils} answered nothing once (a Redis container's port, the
 * likeliest), and the test waited out its 30 s.
 */
public final class TestPorts {

	private static final int LOWEST = 10_000;

	private static final int HIGHEST = 32_000;

	private TestPorts() {
	}

	/** A port between 10000 and 32000 that nothing listens on now. */
	public static int free() {
		for (int i = 0; i < 1000; i++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST, HIGHEST);
			try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("localhost"))) {
				return port;
			}
			catch (IOException ex) {
				// Taken: try another.
			}
		}
		throw new IllegalStateException("No free port between " + LOWEST + " and " + HIGHEST + " in 1000 tries");
	}

}
