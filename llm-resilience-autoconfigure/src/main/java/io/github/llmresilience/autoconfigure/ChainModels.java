package io.github.llmresilience.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.TargetProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The chains that serve one model client's calls (Spring AI's, LangChain4j's): those
 * whose targets name the client's model beans in one target property. Read from the
 * environment before any bean is made, to register each chain's failover model and to
 * turn off the retries of the models the chains protect.
 *
 * @param property the target property that names a model bean ({@code chat-model})
 * @param model reads that property from a target's properties
 * @param kind what the property must name, as a startup failure says it
 * @param client whose calls a chain with such targets serves
 */
record ChainModels(String property, Function<TargetProperties, @Nullable String> model, String kind, String client) {

	/** Spring AI's chat models: {@code llm.resilience.targets.<name>.chat-model}. */
	static final ChainModels SPRING_AI = new ChainModels("chat-model", TargetProperties::getChatModel,
			"a ChatModel bean", "Spring AI");

	/** LangChain4j's models: {@code llm.resilience.targets.<name>.lc4j-chat-model}. */
	static final ChainModels LANGCHAIN4J = new ChainModels("lc4j-chat-model", TargetProperties::getLc4jChatModel,
			"a LangChain4j ChatModel or StreamingChatModel bean", "LangChain4j");

	/** The properties as bound before any bean is made. */
	static LlmResilienceProperties properties(Environment environment) {
		return Binder.get(environment)
			.bind(LlmResilienceProperties.PREFIX, LlmResilienceProperties.class)
			.orElseGet(LlmResilienceProperties::new);
	}

	/** The model beans that the chains protect. */
	static Set<String> protectedModels(Map<String, Map<String, String>> chains) {
		Set<String> names = new LinkedHashSet<>();
		chains.values().forEach((models) -> names.addAll(models.values()));
		return names;
	}

	/**
	 * The chains whose targets name the client's models, each with its targets' model
	 * bean names in chain order.
	 * @throws InvalidLlmResiliencePropertiesException when a chain mixes targets with and
	 * without one
	 */
	Map<String, Map<String, String>> chains(LlmResilienceProperties properties) {
		List<Problem> problems = new ArrayList<>();
		Map<String, Map<String, String>> chains = chains(properties, problems);
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
		return chains;
	}

	/**
	 * The chains whose targets name the client's models, each with its targets' model
	 * bean names in chain order.
	 * @param problems where a chain that mixes targets with and without one is told, one
	 * problem a target without
	 */
	Map<String, Map<String, String>> chains(LlmResilienceProperties properties, List<Problem> problems) {
		Map<String, Map<String, String>> chains = new LinkedHashMap<>();
		properties.getChains().forEach((chain, targets) -> {
			Map<String, String> models = new LinkedHashMap<>();
			List<String> without = new ArrayList<>();
			for (String target : targets) {
				TargetProperties settings = properties.getTargets().get(target);
				@Nullable String model = (settings != null) ? this.model.apply(settings) : null;
				if (model != null && !model.isBlank()) {
					models.put(target, model.trim());
				}
				else if (settings != null) {
					without.add(target);
				}
			}
			if (models.isEmpty()) {
				return;
			}
			for (String target : without) {
				problems.add(new Problem(property(target), "null", "must name " + this.kind + ": chain " + chain
						+ " serves " + this.client + " calls through " + String.join(", ", models.keySet())));
			}
			chains.put(chain, models);
		});
		return chains;
	}

	/** The full name of the target's property. */
	String property(String target) {
		return LlmResilienceProperties.PREFIX + ".targets." + target + "." + this.property;
	}

}
