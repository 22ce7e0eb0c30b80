package io.github.llmresilience.extract;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * The extractors in order, asked about an exception and then each of its causes; the
 * first answer wins. Transport failures of the JDK and Reactor Netty are known here; the
 * {@code web} package adds Spring's clients and the provider SDKs.
 */
public final class ErrorExtractors {

	private static final int MAX_CAUSES = 16;

	private final List<ErrorExtractor> extractors;

	public ErrorExtractors(Collection<? extends ErrorExtractor> extractors) {
		List<ErrorExtractor> all = new ArrayList<>(extractors);
		all.add(ErrorExtractors::transport);
		this.extractors = List.copyOf(all);
	}

	/**
	 * Only the JDK and Reactor Netty transport failures and
	 * {@link ProviderAnswerException}.
	 */
	public static ErrorExtractors standard() {
		return new ErrorExtractors(List.of());
	}

	public ErrorExtractors with(Collection<? extends ErrorExtractor> more) {
		List<ErrorExtractor> all = new ArrayList<>(more);
		all.addAll(this.extractors.subList(0, this.extractors.size() - 1));
		return new ErrorExtractors(all);
	}

	/**
	 * What the provider answered, as far as the exception tells.
	 * @return the response, or {@code null} when no extractor knows the exception or any
	 * of its causes
	 */
	public @Nullable ProviderResponse extract(Throwable error) {
		Map<Throwable, Boolean> seen = new IdentityHashMap<>();
		Throwable current = error;
		for (int depth = 0; current != null && depth < MAX_CAUSES && seen.put(current, Boolean.TRUE) == null; depth++) {
			for (ErrorExtractor extractor : this.extractors) {
				ProviderResponse response;
				try {
					response = extractor.extract(current);
				}
				catch (VirtualMachineError fatal) {
					throw fatal;
				}
				catch (Throwable ex) {
					// An extractor is an application's bean too: one that fails knows
					// nothing.
					response = null;
				}
				if (response != null) {
					return response;
				}
			}
			current = current.getCause();
		}
		return null;
	}

	/** JDK and Reactor Netty transport failures, known by type or by class name. */
	static @Nullable ProviderResponse transport(Throwable error) {
		if (error instanceof ProviderAnswerException answer) {
			return answer.response();
		}
		String name = error.getClass().getName();
		if (error instanceof TimeoutException || error instanceof SocketTimeoutException
				|| name.equals("java.net.http.HttpTimeoutException")
				|| name.equals("io.netty.handler.timeout.ReadTimeoutException")
				|| name.equals("io.netty.handler.timeout.WriteTimeoutException")) {
			return ProviderResponse.timeout();
		}
		if (error instanceof ConnectException || error instanceof UnknownHostException
				|| error instanceof NoRouteToHostException || error instanceof SocketException
				|| error instanceof ClosedChannelException || error instanceof EOFException
				|| error instanceof javax.net.ssl.SSLException
				|| name.equals("java.net.http.HttpConnectTimeoutException")
				|| name.equals("reactor.netty.http.client.PrematureCloseException")
				|| name.equals("io.netty.channel.ConnectTimeoutException")
				|| name.equals("io.netty.channel.AbstractChannel$AnnotatedConnectException")) {
			return ProviderResponse.connectionFailure(error);
		}
		if (error instanceof IOException && error.getCause() == null) {
			return ProviderResponse.connectionFailure(error);
		}
		return null;
	}

}
