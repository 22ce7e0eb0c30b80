package io.github.llmresilience.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * What the starter reads from the classpath and what Jackson writes by reflection, for
 * Boot's AOT processing and a native image: the fleet's Lua script, the status page, the
 * classifier's message families; the endpoint's, the health contributor's and the status
 * page's descriptors (Jackson reads their record components). Registered through
 * {@code META-INF/spring/aot.factories}; a descriptor whose module is absent (no
 * actuator) is skipped.
 */
public final class LlmResilienceRuntimeHints implements RuntimeHintsRegistrar {

	/** The classpath resources the starter reads. */
	static final List<String> RESOURCES = List.of("io/github/llmresilience/data/redis/fleet-sync.lua",
			"io/github/llmresilience/data/redis/lease-exchange.lua", "io/github/llmresilience/actuate/status-page.html",
			"io/github/llmresilience/classify/vendor/families/*.txt");

	/** The types Jackson writes, with everything they reach. */
	static final List<String> JSON_TYPES = List.of("io.github.llmresilience.actuate.StatusPageView",
			"io.github.llmresilience.actuate.TargetDescriptor", "io.github.llmresilience.actuate.ChainDescriptor",
			"io.github.llmresilience.actuate.LlmResilienceEndpoint$LlmResilienceDescriptor",
			"io.github.llmresilience.actuate.LlmResilienceEndpoint$ClassificationDescriptor",
			"io.github.llmresilience.actuate.LlmResilienceEndpoint$RuleDescriptor",
			"io.github.llmresilience.actuate.LlmResilienceEndpoint$VerdictDescriptor",
			"io.github.llmresilience.actuate.LlmResilienceEndpoint$StateChangeDescriptor");

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		RESOURCES.forEach((pattern) -> hints.resources().registerPattern(pattern));
		for (String name : JSON_TYPES) {
			Class<?> type = load(name, classLoader);
			if (type != null) {
				this.bindings.registerReflectionHints(hints.reflection(), type);
			}
		}
	}

	private static @Nullable Class<?> load(String name, @Nullable ClassLoader classLoader) {
		try {
			return ClassUtils.forName(name, classLoader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			// The actuator is optional: without it there is nothing to write.
			return null;
		}
	}

}
