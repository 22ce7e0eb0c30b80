package io.github.llmresilience.actuate;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoint;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.actuate.endpoint.web.WebEndpointHttpMethod;
import org.springframework.boot.actuate.endpoint.web.WebOperationRequestPredicate;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.util.function.SingletonSupplier;

/**
 * Which requests are chain edits: {@code POST {base-path}/{llmresilience's path}/chains/{name}}
 * with a content type the write operation consumes, and only while Boot maps that write
 * operation (the endpoint is exposed over the web and its access is unrestricted). Both
 * the base path ({@code management.endpoints.web.base-path}) and the endpoint's path
 * ({@code management.endpoints.web.path-mapping.llmresilience}) come from Boot's
 * {@link PathMappedEndpoints}, read at the first request.
 */
final class ChainEditRequests {

	private static final EndpointId ENDPOINT_ID = EndpointId.of("llmresilience");

	private final Supplier<Optional<Write>> write;

	ChainEditRequests(Supplier<@Nullable PathMappedEndpoints> endpoints) {
		Objects.requireNonNull(endpoints, "endpoints");
		this.write = SingletonSupplier.of(() -> Optional.ofNullable(write(endpoints.get())));
	}

	/**
	 * Whether a request is a chain edit.
	 * @param method the request's HTTP method
	 * @param path the request's path within the application (past any context path), not
	 * decoded
	 * @param contentType the request's {@code Content-Type}, or {@code null}
	 */
	boolean matches(String method, String path, @Nullable String contentType) {
		if (!"POST".equals(method) || contentType == null) {
			return false;
		}
		Write write = this.write.get().orElse(null);
		if (write == null || !path.startsWith(write.chainsPath())) {
			return false;
		}
		String name = path.substring(write.chainsPath().length());
		if (name.isEmpty() || name.indexOf('/') >= 0) {
			return false;
		}
		MediaType type;
		try {
			type = MediaType.parseMediaType(contentType);
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
		return write.consumes().isEmpty() || write.consumes().stream().anyMatch((consumed) -> consumed.includes(type));
	}

	private static @Nullable Write write(@Nullable PathMappedEndpoints endpoints) {
		if (endpoints == null) {
			return null;
		}
		PathMappedEndpoint endpoint = endpoints.getEndpoint(ENDPOINT_ID);
		String path = endpoints.getPath(ENDPOINT_ID);
		if (!(endpoint instanceof ExposableWebEndpoint web) || path == null) {
			return null;
		}
		String operationPath = endpoint.getRootPath() + "/{kind}/{name}";
		return web.getOperations()
			.stream()
			.map((operation) -> operation.getRequestPredicate())
			.filter((predicate) -> predicate.getHttpMethod() == WebEndpointHttpMethod.POST
					&& predicate.getPath().equals(operationPath))
			.findFirst()
			.map((predicate) -> new Write(path + "/chains/", consumes(predicate)))
			.orElse(null);
	}

	private static List<MediaType> consumes(WebOperationRequestPredicate predicate) {
		return predicate.getConsumes().stream().map(MediaType::parseMediaType).toList();
	}

	/**
	 * The mapped write operation.
	 *
	 * @param chainsPath the path up to a chain's name, such as
	 * {@code /actuator/llmresilience/chains/}
	 * @param consumes the content types it reads, none for any
	 */
	private record Write(String chainsPath, List<MediaType> consumes) {

	}

}
