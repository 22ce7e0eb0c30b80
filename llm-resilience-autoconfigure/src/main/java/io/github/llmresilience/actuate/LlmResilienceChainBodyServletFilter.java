package io.github.llmresilience.actuate;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.UrlPathHelper;

/**
 * Lets a servlet (Spring MVC) application's chain edit take the JSON array it promises:
 * {@code POST /actuator/llmresilience/chains/{name}} with {@code {"targets": ["secondary",
 * "primary"]}}. Boot reads a write operation's body as string values and refuses an
 * array before the operation runs; this filter, which runs before the
 * {@code DispatcherServlet} and so before Boot's endpoint handler mapping, rewrites that
 * member into the comma-separated string the operation takes ({@code "secondary,primary"})
 * and leaves everything else to Boot: exposure, access, the base path and path mapping
 * (from {@link PathMappedEndpoints}), the operation itself.
 *
 * <p>It touches only a {@code POST} to {@code {base-path}/llmresilience/chains/{name}}
 * (within the servlet's mapping, as Spring MVC sees it) with a content type the write
 * operation consumes, and only while Boot maps that operation (not when the endpoint's
 * access is read-only). Of such a request it reads the body (at most
 * {@value ChainEditBody#MAX_BYTES} bytes; a longer one is answered 413): a JSON object
 * whose {@code targets} is an array of names is passed on with the names joined (and
 * {@code Content-Length} set to match); an element that is not a string, is blank or
 * holds a comma is answered 400 with a body that says which, and nothing changes; any
 * other body is passed on as it came, for the operation (or Boot) to answer.
 *
 * <p>Its order, {@link #ORDER}, is after Spring Security's filter (-100), so that the
 * security rules on the path answer first.
 *
 * <p>It serves the web server of the context it is a bean of. With
 * {@code management.server.port} set, the actuator runs in a child context with a server
 * of its own: llm-resilience then registers this filter in that child context (through
 * Boot's {@code @ManagementContextConfiguration}) and not in the application's, where the
 * actuator is not served.
 */
public class LlmResilienceChainBodyServletFilter extends OncePerRequestFilter implements Ordered {

	/** After Spring Security's filter (-100), before filters without an order. */
	public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 10;

	private static final UrlPathHelper PATHS = new UrlPathHelper();

	static {
		PATHS.setUrlDecode(false);
	}

	private final ChainEditRequests requests;

	/**
	 * @param endpoints Boot's path-mapped endpoints (called at the first request), or a
	 * supplier of {@code null} when there are none
	 */
	public LlmResilienceChainBodyServletFilter(Supplier<@Nullable PathMappedEndpoints> endpoints) {
		this.requests = new ChainEditRequests(Objects.requireNonNull(endpoints, "endpoints"));
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		return !this.requests.matches(request.getMethod(), PATHS.getLookupPathForRequest(request),
				request.getContentType());
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		byte[] body = request.getInputStream().readNBytes(ChainEditBody.MAX_BYTES + 1);
		if (body.length > ChainEditBody.MAX_BYTES) {
			answer(response, HttpStatus.CONTENT_TOO_LARGE, ChainEditBody.tooLarge());
			return;
		}
		ChainEditBody.Outcome outcome = ChainEditBody.adapt(body);
		if (outcome instanceof ChainEditBody.Rejected rejected) {
			answer(response, HttpStatus.BAD_REQUEST, ChainEditBody.badRequest(rejected.message()));
		}
		else if (outcome instanceof ChainEditBody.Rewritten rewritten) {
			String contentType = ChainEditBody
				.contentTypeOfRewritten(Objects.requireNonNull(request.getContentType()));
			chain.doFilter(new BodyRequest(request, rewritten.body(), contentType), response);
		}
		else {
			chain.doFilter(new BodyRequest(request, body, null), response);
		}
	}

	private static void answer(HttpServletResponse response, HttpStatus status, byte[] body) throws IOException {
		response.setStatus(status.value());
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

	/**
	 * The request with a body read from memory: {@code Content-Length} is the body's,
	 * {@code Transfer-Encoding} is gone, and {@code Content-Type} may be replaced.
	 */
	private static final class BodyRequest extends HttpServletRequestWrapper {

		private final byte[] body;

		private final @Nullable String contentType;

		BodyRequest(HttpServletRequest request, byte[] body, @Nullable String contentType) {
			super(request);
			this.body = body;
			this.contentType = contentType;
		}

		@Override
		public ServletInputStream getInputStream() {
			return new BodyInputStream(this.body);
		}

		@Override
		public BufferedReader getReader() {
			String encoding = getCharacterEncoding();
			Charset charset = (encoding != null) ? Charset.forName(encoding) : StandardCharsets.UTF_8;
			return new BufferedReader(new InputStreamReader(getInputStream(), charset));
		}

		@Override
		public int getContentLength() {
			return this.body.length;
		}

		@Override
		public long getContentLengthLong() {
			return this.body.length;
		}

		@Override
		public @Nullable String getContentType() {
			return (this.contentType != null) ? this.contentType : super.getContentType();
		}

		@Override
		public @Nullable String getCharacterEncoding() {
			return (this.contentType != null) ? StandardCharsets.UTF_8.name() : super.getCharacterEncoding();
		}

		@Override
		public @Nullable String getHeader(String name) {
			if (HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
				return String.valueOf(this.body.length);
			}
			if (HttpHeaders.TRANSFER_ENCODING.equalsIgnoreCase(name)) {
				return null;
			}
			if (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name) && this.contentType != null) {
				return this.contentType;
			}
			return super.getHeader(name);
		}

		@Override
		public Enumeration<String> getHeaders(String name) {
			String value = getHeader(name);
			boolean replaced = HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)
					|| HttpHeaders.TRANSFER_ENCODING.equalsIgnoreCase(name)
					|| (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name) && this.contentType != null);
			if (replaced) {
				return (value != null) ? Collections.enumeration(List.of(value)) : Collections.emptyEnumeration();
			}
			return super.getHeaders(name);
		}

		@Override
		public int getIntHeader(String name) {
			return HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name) ? this.body.length : super.getIntHeader(name);
		}

		@Override
		public Enumeration<String> getHeaderNames() {
			List<String> names = new ArrayList<>();
			boolean hasLength = false;
			for (Enumeration<String> each = super.getHeaderNames(); each.hasMoreElements();) {
				String name = each.nextElement();
				if (HttpHeaders.TRANSFER_ENCODING.equalsIgnoreCase(name)) {
					continue;
				}
				hasLength |= HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name);
				names.add(name);
			}
			if (!hasLength) {
				names.add(HttpHeaders.CONTENT_LENGTH);
			}
			return Collections.enumeration(names);
		}

	}

	/** A servlet input stream over bytes in memory: always ready, never blocks. */
	private static final class BodyInputStream extends ServletInputStream {

		private final ByteArrayInputStream in;

		BodyInputStream(byte[] body) {
			this.in = new ByteArrayInputStream(body);
		}

		@Override
		public int read() {
			return this.in.read();
		}

		@Override
		public int read(byte[] bytes, int offset, int length) {
			return this.in.read(bytes, offset, length);
		}

		@Override
		public int available() {
			return this.in.available();
		}

		@Override
		public boolean isFinished() {
			return this.in.available() == 0;
		}

		@Override
		public boolean isReady() {
			return true;
		}

		@Override
		public void setReadListener(ReadListener listener) {
			try {
				listener.onDataAvailable();
				listener.onAllDataRead();
			}
			catch (IOException ex) {
				listener.onError(ex);
			}
		}

	}

}
