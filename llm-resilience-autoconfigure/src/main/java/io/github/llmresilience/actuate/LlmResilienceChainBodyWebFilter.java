package io.github.llmresilience.actuate;

import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * Lets a WebFlux application's chain edit take the JSON array it promises:
 * {@code POST /actuator/llmresilience/chains/{name}} with {@code {"targets": ["secondary",
 * "primary"]}}. Boot reads a write operation's body as string values and refuses an
 * array before the operation runs; this filter, which runs before Boot's endpoint handler
 * mapping, rewrites that member into the comma-separated string the operation takes
 * ({@code "secondary,primary"}) and leaves everything else to Boot: exposure, access, the
 * base path and path mapping (from {@link PathMappedEndpoints}), the operation itself.
 *
 * <p>It touches only a {@code POST} to {@code {base-path}/llmresilience/chains/{name}}
 * with a content type the write operation consumes, and only while Boot maps that
 * operation (not when the endpoint's access is read-only). Of such a request it reads the
 * body (at most {@value ChainEditBody#MAX_BYTES} bytes; a longer one is answered 413): a
 * JSON object whose {@code targets} is an array of names is passed on with the names
 * joined (and {@code Content-Length} set to match); an element that is not a string, is
 * blank or holds a comma is answered 400 with a body that says which, and nothing
 * changes; any other body is passed on as it came, for the operation (or Boot) to
 * answer.
 *
 * <p>Its order, {@link #ORDER}, is after Spring Security's {@code WebFilterChainProxy}
 * (-100), so that the security rules on the path answer first.
 *
 * <p>It serves the web server of the context it is a bean of. With
 * {@code management.server.port} set, the actuator runs in a child context with a server
 * of its own: llm-resilience then registers this filter in that child context (through
 * Boot's {@code @ManagementContextConfiguration}) and not in the application's, where the
 * actuator is not served.
 */
public class LlmResilienceChainBodyWebFilter implements WebFilter, Ordered {

	/** After Spring Security's filter chain (-100), before filters without an order. */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 10;

	private static final byte[] TOO_LARGE = new byte[0];

	private final ChainEditRequests requests;

	/**
	 * @param endpoints Boot's path-mapped endpoints (called at the first request), or a
	 * supplier of {@code null} when there are none
	 */
	public LlmResilienceChainBodyWebFilter(Supplier<@Nullable PathMappedEndpoints> endpoints) {
		this.requests = new ChainEditRequests(Objects.requireNonNull(endpoints, "endpoints"));
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		HttpHeaders headers = request.getHeaders();
		String contentType = headers.getFirst(HttpHeaders.CONTENT_TYPE);
		if (!this.requests.matches(request.getMethod().name(), request.getPath().pathWithinApplication().value(),
				contentType)) {
			return chain.filter(exchange);
		}
		return DataBufferUtils.join(request.getBody(), ChainEditBody.MAX_BYTES)
			.map(LlmResilienceChainBodyWebFilter::bytes)
			.defaultIfEmpty(new byte[0])
			.onErrorResume(DataBufferLimitException.class, (ex) -> Mono.just(TOO_LARGE))
			.flatMap((body) -> {
				if (body == TOO_LARGE) {
					return answer(exchange.getResponse(), HttpStatus.CONTENT_TOO_LARGE, ChainEditBody.tooLarge());
				}
				ChainEditBody.Outcome outcome = ChainEditBody.adapt(body);
				if (outcome instanceof ChainEditBody.Rejected rejected) {
					return answer(exchange.getResponse(), HttpStatus.BAD_REQUEST,
							ChainEditBody.badRequest(rejected.message()));
				}
				if (outcome instanceof ChainEditBody.Rewritten rewritten) {
					return chain.filter(withBody(exchange, rewritten.body(),
							ChainEditBody.contentTypeOfRewritten(Objects.requireNonNull(contentType))));
				}
				return chain.filter(withBody(exchange, body, null));
			});
	}

	private static byte[] bytes(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	/** The exchange with a request whose body is {@code body}, read from memory. */
	private static ServerWebExchange withBody(ServerWebExchange exchange, byte[] body, @Nullable String contentType) {
		ServerHttpRequest headed = exchange.getRequest().mutate().headers((headers) -> {
			headers.remove(HttpHeaders.TRANSFER_ENCODING);
			headers.setContentLength(body.length);
			if (contentType != null) {
				headers.set(HttpHeaders.CONTENT_TYPE, contentType);
			}
		}).build();
		DataBufferFactory buffers = exchange.getResponse().bufferFactory();
		ServerHttpRequest request = new ServerHttpRequestDecorator(headed) {

			@Override
			public Flux<DataBuffer> getBody() {
				return Flux.defer(() -> Flux.just(buffers.wrap(body)));
			}

		};
		return exchange.mutate().request(request).build();
	}

	private static Mono<Void> answer(ServerHttpResponse response, HttpStatus status, byte[] body) {
		response.setStatusCode(status);
		response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
		response.getHeaders().setContentLength(body.length);
		return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
	}

}
