package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on loopback that hands every answer of the server back late, as a slow
 * network or an overloaded server would: requests pass at once, answers arrive
 * {@code delay} after they were sent, in order.
 */
final class SlowProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int target;

	private final long delayNanos;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile boolean closed;

	SlowProxy(int target, Duration delay) {
		this.target = target;
		this.delayNanos = delay.toNanos();
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		daemon("slow-proxy-accept", this::accept);
	}

	int port() {
		return this.server.getLocalPort();
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket(InetAddress.getLoopbackAddress(), this.target);
				this.sockets.add(client);
				this.sockets.add(upstream);
				daemon("slow-proxy-up", () -> pump(client, upstream));
				DelayQueue<Chunk> late = new DelayQueue<>();
				daemon("slow-proxy-read", () -> read(upstream, late));
				daemon("slow-proxy-write", () -> deliver(late, client));
			}
			catch (IOException ex) {
				// Closed, or a connection that failed: the next one is accepted.
			}
		}
	}

	private static void pump(Socket from, Socket to) {
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			in.transferTo(out);
		}
		catch (IOException ex) {
			// Either side closed.
		}
		closeQuietly(from);
		closeQuietly(to);
	}

	private void read(Socket upstream, DelayQueue<Chunk> late) {
		byte[] buffer = new byte[16384];
		long sequence = 0;
		try (InputStream in = upstream.getInputStream()) {
			int n;
			while ((n = in.read(buffer)) >= 0) {
				late.put(new Chunk(System.nanoTime() + this.delayNanos, sequence++, Arrays.copyOf(buffer, n)));
			}
		}
		catch (IOException ex) {
			// Closed.
		}
		late.put(new Chunk(System.nanoTime() + this.delayNanos, sequence, null));
	}

	private static void deliver(DelayQueue<Chunk> late, Socket client) {
		try (OutputStream out = client.getOutputStream()) {
			while (true) {
				Chunk chunk = late.take();
				if (chunk.bytes == null) {
					break;
				}
				out.write(chunk.bytes);
				out.flush();
			}
		}
		catch (IOException ex) {
			// Closed.
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		closeQuietly(client);
	}

	private static void daemon(String name, Runnable runnable) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
		this.sockets.forEach(SlowProxy::closeQuietly);
	}

	/** Bytes due at a time; equal times keep their order. */
	private record Chunk(long dueNanos, long sequence, byte[] bytes) implements Delayed {

		@Override
		public long getDelay(TimeUnit unit) {
			return unit.convert(this.dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
		}

		@Override
		public int compareTo(Delayed other) {
			Chunk that = (Chunk) other;
			int byTime = Long.compare(this.dueNanos, that.dueNanos);
			return (byTime != 0) ? byTime : Long.compare(this.sequence, that.sequence);
		}

	}

}
