package io.github.llmresilience.classify.vendor;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import io.github.llmresilience.classify.vendor.anthropic.Anthropic;
import io.github.llmresilience.classify.vendor.bedrock.Bedrock;
import io.github.llmresilience.classify.vendor.cohere.Cohere;
import io.github.llmresilience.classify.vendor.google.Google;
import io.github.llmresilience.classify.vendor.openai.OpenAi;
import org.jspecify.annotations.Nullable;

/**
 * The vendors this library ships: the registration list, and the views the concerns read
 * of it.
 */
public final class Vendors {

	/**
	 * Every built-in vendor, one line per provider id. The order is the order of the
	 * known ids in messages, and the order in which header forms are tried (OpenAI's
	 * before Anthropic's).
	 */
	public static final List<Vendor> REGISTERED = List.of(OpenAi.OPENAI, OpenAi.AZURE_OPENAI, Anthropic.ANTHROPIC,
			Google.GEMINI, Google.VERTEX_AI, Bedrock.BEDROCK, OpenAi.MISTRAL, Cohere.COHERE, OpenAi.AZURE_AI_FOUNDRY,
			OpenAi.XAI, OpenAi.DEEPSEEK, OpenAi.GROQ, OpenAi.TOGETHER, OpenAi.FIREWORKS, OpenAi.PERPLEXITY,
			OpenAi.OPENROUTER, OpenAi.CEREBRAS, OpenAi.SAMBANOVA, OpenAi.DEEPINFRA, OpenAi.ZAI, OpenAi.DASHSCOPE,
			OpenAi.MOONSHOT, OpenAi.VLLM, OpenAi.TGI, OpenAi.OLLAMA, OpenAi.LITELLM, OpenAi.OPENAI_COMPATIBLE);

	private Vendors() {
	}

	/**
	 * The vendor of a provider id, matched exactly.
	 * @param id a provider id
	 * @return the vendor, or {@code null} when none is registered
	 */
	public static @Nullable Vendor find(String id) {
		for (Vendor vendor : REGISTERED) {
			if (vendor.id().equals(id)) {
				return vendor;
			}
		}
		return null;
	}

	/**
	 * One part of every vendor that has it, each distinct part once, in registration
	 * order: the header forms and usage fields that every answer is read with.
	 * @param part the part, {@code null} where a vendor has none
	 * @return the distinct parts
	 */
	public static <T> List<T> distinct(Function<Vendor, @Nullable T> part) {
		List<T> parts = new ArrayList<>();
		for (Vendor vendor : REGISTERED) {
			T value = part.apply(vendor);
			if (value != null && !parts.contains(value)) {
				parts.add(Objects.requireNonNull(value));
			}
		}
		return List.copyOf(parts);
	}

}
