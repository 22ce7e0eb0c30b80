package io.github.llmresilience.web;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * The first bytes of a response body, read for classification, and the whole body
 * afterwards: one subscription to the connection, whose buffers are re-emitted in order
 * (the ones already read first, then the rest as the reader asks for it), so nothing is
 * lost and a body of any length reaches the reader unchanged.
 *
 * <p>
 * Buffers are read one at a time until the limit is reached or the body ends; after that
 * the connection is read only on the reader's demand. Whoever gets a {@code BodyPrefix}
 * must either read {@link #body()} or call {@link #discard()}.
 */
final class BodyPrefix extends BaseSubscriber<DataBuffer> {

	private final int limit;

	private final MonoSink<BodyPrefix> ready;

	private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

	// Unicast: one reader, buffers kept until it subscribes, discarded if it cancels.
	private final Sinks.Many<DataBuffer> buffers = Sinks.many().unicast().onBackpressureBuffer();

	private boolean prefixRead;

	private BodyPrefix(int limit, MonoSink<BodyPrefix> ready) {
		this.limit = limit;
		this.ready = ready;
	}

	/**
	 * Read up to {@code limit} bytes of a body.
	 * @param body the body, not yet subscribed
	 * @param limit the most bytes to read before handing the body on
	 * @return the prefix, once the limit is reached or the body has ended
	 */
	static Mono<BodyPrefix> read(Flux<DataBuffer> body, int limit) {
		return Mono.create((sink) -> {
			BodyPrefix prefix = new BodyPrefix(limit, sink);
			sink.onCancel(prefix::discard);
			body.subscribe(prefix);
		});
	}

	/** The bytes read, at most the limit. */
	byte[] bytes() {
		return this.bytes.toByteArray();
	}

	/** The whole body, from its first byte; may be subscribed once. */
	Flux<DataBuffer> body() {
		return this.buffers.asFlux()
			.doOnRequest(this::request)
			.doOnCancel(this::cancel)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release);
	}

	/**
	 * Close the connection and release every buffer held, for a body nobody will read.
	 */
	void discard() {
		cancel();
		// Draining the unused sink releases what it holds, and what an onNext racing with
		// the cancel still puts in it.
		this.buffers.asFlux().subscribe(DataBufferUtils::release, (error) -> {
		});
	}

	@Override
	protected void hookOnSubscribe(Subscription subscription) {
		subscription.request(1);
	}

	@Override
	protected void hookOnNext(DataBuffer buffer) {
		if (!this.prefixRead) {
			copy(buffer);
		}
		if (this.buffers.tryEmitNext(buffer).isFailure()) {
			DataBufferUtils.release(buffer);
		}
		if (!this.prefixRead) {
			if (this.bytes.size() >= this.limit) {
				this.prefixRead = true;
				this.ready.success(this);
			}
			else {
				request(1);
			}
		}
	}

	@Override
	protected void hookOnComplete() {
		this.buffers.tryEmitComplete();
		if (!this.prefixRead) {
			this.prefixRead = true;
			this.ready.success(this);
		}
	}

	@Override
	protected void hookOnError(Throwable error) {
		this.buffers.tryEmitError(error);
		if (!this.prefixRead) {
			this.prefixRead = true;
			discard();
			this.ready.error(error);
		}
	}

	private void copy(DataBuffer buffer) {
		int length = Math.min(buffer.readableByteCount(), this.limit - this.bytes.size());
		if (length > 0) {
			byte[] chunk = new byte[length];
			// Copied without moving the read position: the reader gets the buffer intact.
			buffer.toByteBuffer(buffer.readPosition(), ByteBuffer.wrap(chunk), 0, length);
			this.bytes.write(chunk, 0, length);
		}
	}

}
