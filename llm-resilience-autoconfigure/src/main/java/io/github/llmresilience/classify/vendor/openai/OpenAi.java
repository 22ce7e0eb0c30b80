package io.github.llmresilience.classify.vendor.openai;

import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.llmresilience.classify.Outcome;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.classify.vendor.LimitHeaders;
import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;
import io.github.llmresilience.classify.vendor.WaitHeaders;
import org.jspecify.annotations.Nullable;

/**
 * OpenAI and the APIs shaped like it, one {@link Vendor} per provider id: they share the
 * error body, the headers, the usage fields and the stream, and differ in how the canary
 * reaches them.
 */
public final class OpenAi implements Vendor {

	/** The Azure OpenAI API version the canary speaks (generally available). */
	public static final String AZURE_API_VERSION = OpenAiCanary.AZURE_API_VERSION;

	/** OpenAI's own API. */
	public static final Vendor OPENAI = new OpenAi(
			OpenAiProfile.of("openai", OpenAiCanary.OPENAI, "https://platform.openai.com/docs/guides/error-codes"));

	/** Azure OpenAI: a deployment in the path, an {@code api-key} header. */
	public static final Vendor AZURE_OPENAI = new OpenAi(OpenAiProfile
		.of("azure-openai", OpenAiCanary.AZURE_OPENAI, "https://learn.microsoft.com/azure/ai-foundry/openai/reference")
		.codes(Map.of("NoCapacity", Outcome.AVAILABILITY, "content_filter_error", Outcome.AVAILABILITY)));

	/**
	 * Azure AI Foundry's model inference ({@code /models/chat/completions}): Azure's
	 * codes, OpenAI's body.
	 */
	public static final Vendor AZURE_AI_FOUNDRY = new OpenAi(OpenAiProfile
		.of("azure-ai-foundry", OpenAiCanary.COMPATIBLE,
				"https://learn.microsoft.com/rest/api/aifoundry/model-inference/")
		.codes(Map.of("NoCapacity", Outcome.AVAILABILITY, "Unauthorized", Outcome.CREDENTIAL, "Forbidden",
				Outcome.CREDENTIAL, "unknown_model", Outcome.REQUEST, "ModelNotFound", Outcome.REQUEST)));

	/** Mistral: OpenAI's body, its errors' fields at the top level, numeric codes. */
	public static final Vendor MISTRAL = new OpenAi(
			OpenAiProfile.of("mistral", OpenAiCanary.MISTRAL, "https://docs.mistral.ai/api/"));

	/** xAI (Grok): {@code {"code": "...", "error": "..."}}, gRPC-style descriptions. */
	public static final Vendor XAI = new OpenAi(
			OpenAiProfile.of("xai", OpenAiCanary.COMPATIBLE, "https://docs.x.ai/docs/key-information/debugging"));

	/** DeepSeek: 402 is an empty balance, 503 an overloaded server. */
	public static final Vendor DEEPSEEK = new OpenAi(OpenAiProfile
		.of("deepseek", OpenAiCanary.COMPATIBLE, "https://api-docs.deepseek.com/quick_start/error_codes")
		.statuses(Map.of(402, Outcome.QUOTA, 422, Outcome.REQUEST, 503, Outcome.AVAILABILITY)));

	/** Groq: 498 is its flex tier at capacity, 413 a request above the minute's limit. */
	public static final Vendor GROQ = new OpenAi(
			OpenAiProfile.of("groq", OpenAiCanary.COMPATIBLE, "https://console.groq.com/docs/errors")
				.codes(Map.of("model_decommissioned", Outcome.REQUEST, "model_not_active", Outcome.REQUEST))
				.statuses(Map.of(498, Outcome.AVAILABILITY, 499, Outcome.AVAILABILITY)));

	/** Together AI. */
	public static final Vendor TOGETHER = new OpenAi(
			OpenAiProfile.of("together", OpenAiCanary.COMPATIBLE, "https://docs.together.ai/docs/error-codes")
				.codes(Map.of("credit_limit", Outcome.QUOTA)));

	/** Fireworks AI. */
	public static final Vendor FIREWORKS = new OpenAi(OpenAiProfile.of("fireworks", OpenAiCanary.COMPATIBLE,
			"https://docs.fireworks.ai/troubleshooting/status-error-codes/error-codes"));

	/** Perplexity. */
	public static final Vendor PERPLEXITY = new OpenAi(
			OpenAiProfile.of("perplexity", OpenAiCanary.COMPATIBLE, "https://docs.perplexity.ai/guides/api-errors"));

	/**
	 * OpenRouter: numeric codes, 402 for credits, upstream errors wrapped with
	 * {@code metadata.raw}.
	 */
	public static final Vendor OPENROUTER = new OpenAi(
			OpenAiProfile.of("openrouter", OpenAiCanary.COMPATIBLE, "https://openrouter.ai/docs/api-reference/errors")
				.statuses(Map.of(402, Outcome.QUOTA, 408, Outcome.AVAILABILITY, 502, Outcome.AVAILABILITY, 503,
						Outcome.AVAILABILITY)));

	/**
	 * Cerebras: every limit is a {@code *_quota_exceeded} code (the message names the
	 * period), {@code queue_exceeded} its capacity.
	 */
	public static final Vendor CEREBRAS = new OpenAi(
			OpenAiProfile.of("cerebras", OpenAiCanary.COMPATIBLE, "https://inference-docs.cerebras.ai/support/error")
				.codes(Map.of("request_quota_exceeded", Outcome.THROTTLED, "token_quota_exceeded", Outcome.THROTTLED,
						"queue_exceeded", Outcome.AVAILABILITY, "too_many_requests_error", Outcome.THROTTLED)));

	/** SambaNova Cloud. */
	public static final Vendor SAMBANOVA = new OpenAi(OpenAiProfile.of("sambanova", OpenAiCanary.COMPATIBLE,
			"https://docs.sambanova.ai/cloud/docs/get-started/rate-limits"));

	/** DeepInfra: {@code {"detail": ...}} bodies beside OpenAI's. */
	public static final Vendor DEEPINFRA = new OpenAi(
			OpenAiProfile.of("deepinfra", OpenAiCanary.COMPATIBLE, "https://deepinfra.com/docs/advanced/openai_api"));

	/** Z.ai (Zhipu GLM): numeric business codes in {@code error.code}. */
	public static final Vendor ZAI = new OpenAi(
			OpenAiProfile.of("zai", OpenAiCanary.COMPATIBLE, "https://docs.z.ai/api-reference/api-code")
				.codes(Map.ofEntries(Map.entry("1000", Outcome.CREDENTIAL), Map.entry("1001", Outcome.CREDENTIAL),
						Map.entry("1002", Outcome.CREDENTIAL), Map.entry("1003", Outcome.CREDENTIAL),
						Map.entry("1004", Outcome.CREDENTIAL), Map.entry("1110", Outcome.CREDENTIAL),
						Map.entry("1111", Outcome.CREDENTIAL), Map.entry("1112", Outcome.CREDENTIAL),
						Map.entry("1113", Outcome.QUOTA), Map.entry("1120", Outcome.CREDENTIAL),
						Map.entry("1211", Outcome.REQUEST), Map.entry("1220", Outcome.CREDENTIAL),
						Map.entry("1261", Outcome.REQUEST), Map.entry("1301", Outcome.CONTENT_FILTER),
						Map.entry("1302", Outcome.THROTTLED), Map.entry("1303", Outcome.THROTTLED),
						Map.entry("1304", Outcome.QUOTA), Map.entry("1305", Outcome.AVAILABILITY),
						Map.entry("1308", Outcome.QUOTA), Map.entry("1309", Outcome.QUOTA),
						Map.entry("1310", Outcome.QUOTA), Map.entry("1234", Outcome.AVAILABILITY))));

	/**
	 * DashScope (Qwen), its OpenAI-compatible mode and its own API. Its per-minute token
	 * throttle (Throttling.AllocationQuota) arrives worded as OpenAI's empty balance,
	 * {@code insufficient_quota} and all: here that code is a throttle; an unpaid bill is
	 * {@code Arrearage}.
	 */
	public static final Vendor DASHSCOPE = new OpenAi(OpenAiProfile
		.of("dashscope", OpenAiCanary.COMPATIBLE, "https://www.alibabacloud.com/help/en/model-studio/error-code")
		.codes(Map.ofEntries(Map.entry("Arrearage", Outcome.QUOTA), Map.entry("PrepaidBillOverdue", Outcome.QUOTA),
				Map.entry("PostpaidBillOverdue", Outcome.QUOTA),
				Map.entry("AllocationQuota.FreeTierOnly", Outcome.QUOTA),
				Map.entry("CommodityNotPurchased", Outcome.CREDENTIAL), Map.entry("InvalidApiKey", Outcome.CREDENTIAL),
				Map.entry("invalid_api_key", Outcome.CREDENTIAL), Map.entry("AccessDenied", Outcome.CREDENTIAL),
				Map.entry("AccessDenied.Unpurchased", Outcome.CREDENTIAL),
				Map.entry("Model.AccessDenied", Outcome.CREDENTIAL), Map.entry("Throttling", Outcome.THROTTLED),
				Map.entry("Throttling.RateQuota", Outcome.THROTTLED),
				Map.entry("Throttling.AllocationQuota", Outcome.THROTTLED),
				Map.entry("Throttling.BurstRate", Outcome.THROTTLED), Map.entry("limit_requests", Outcome.THROTTLED),
				Map.entry("insufficient_quota", Outcome.THROTTLED),
				Map.entry("DataInspectionFailed", Outcome.CONTENT_FILTER),
				Map.entry("data_inspection_failed", Outcome.CONTENT_FILTER),
				Map.entry("ModelNotFound", Outcome.REQUEST), Map.entry("InvalidParameter", Outcome.REQUEST),
				Map.entry("InternalError", Outcome.AVAILABILITY), Map.entry("ModelServiceFailed", Outcome.AVAILABILITY),
				Map.entry("InternalError.Algo", Outcome.AVAILABILITY))));

	/** Moonshot (Kimi): {@code *_error} types. */
	public static final Vendor MOONSHOT = new OpenAi(OpenAiProfile
		.of("moonshot", OpenAiCanary.COMPATIBLE, "https://platform.moonshot.ai/docs/api/chat#error-explanation")
		.codes(Map.of("exceeded_current_quota_error", Outcome.QUOTA, "engine_overloaded_error", Outcome.AVAILABILITY,
				"rate_limit_reached_error", Outcome.THROTTLED, "invalid_authentication_error", Outcome.CREDENTIAL,
				"permission_denied_error", Outcome.CREDENTIAL, "resource_not_found_error", Outcome.REQUEST,
				"content_filter", Outcome.CONTENT_FILTER)));

	/** vLLM's OpenAI-compatible server. */
	public static final Vendor VLLM = new OpenAi(OpenAiProfile
		.of("vllm", OpenAiCanary.COMPATIBLE, "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html")
		.codes(Map.of("InternalServerError", Outcome.AVAILABILITY, "ServiceUnavailableError", Outcome.AVAILABILITY)));

	/**
	 * Hugging Face Text Generation Inference: {@code {"error", "error_type"}}, 429 when
	 * overloaded.
	 */
	public static final Vendor TGI = new OpenAi(
			OpenAiProfile.of("tgi", OpenAiCanary.COMPATIBLE, "https://huggingface.co/docs/text-generation-inference")
				.codes(Map.of("overloaded", Outcome.AVAILABILITY, "validation", Outcome.REQUEST, "generation",
						Outcome.AVAILABILITY, "incomplete_generation", Outcome.AVAILABILITY))
				.statuses(Map.of(429, Outcome.AVAILABILITY)));

	/** Ollama: {@code {"error": "..."}}; its 500s are the server's. */
	public static final Vendor OLLAMA = new OpenAi(OpenAiProfile.of("ollama", OpenAiCanary.COMPATIBLE,
			"https://github.com/ollama/ollama/blob/main/docs/api.md"));

	/**
	 * A LiteLLM proxy in front of any provider: the upstream's error is in the message
	 * ({@code litellm.RateLimitError: ...}), where the message families read it.
	 */
	public static final Vendor LITELLM = new OpenAi(
			OpenAiProfile.of("litellm", OpenAiCanary.COMPATIBLE, "https://docs.litellm.ai/docs/exception_mapping")
				.codes(Map.of("budget_exceeded", Outcome.QUOTA)));

	/** Servers that speak OpenAI's API and have no profile of their own. */
	public static final Vendor OPENAI_COMPATIBLE = new OpenAi(OpenAiProfile.of("openai-compatible",
			OpenAiCanary.COMPATIBLE, "https://platform.openai.com/docs/api-reference"));

	/** Every profile, in registration order (the compatible fallback last). */
	public static final List<Vendor> PROFILES = List.of(OPENAI, AZURE_OPENAI, AZURE_AI_FOUNDRY, MISTRAL, XAI, DEEPSEEK,
			GROQ, TOGETHER, FIREWORKS, PERPLEXITY, OPENROUTER, CEREBRAS, SAMBANOVA, DEEPINFRA, ZAI, DASHSCOPE, MOONSHOT,
			VLLM, TGI, OLLAMA, LITELLM);

	/**
	 * {@code retry-after-ms}, and {@code x-ratelimit-reset-requests} /
	 * {@code x-ratelimit-reset-tokens} as durations ({@code 6m0s}).
	 */
	private static final WaitHeaders WAIT = WaitHeaders.resetDurations("x-ratelimit-reset-", "x-ratelimit-remaining-")
		.withRetryAfterMillis("retry-after-ms");

	/** Per minute, on every answer (OpenAI and Azure). */
	private static final LimitHeaders LIMITS = new LimitHeaders("x-ratelimit-limit-requests",
			"x-ratelimit-limit-tokens", null, null, "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens");

	/**
	 * {@code usage} of chat completions ({@code prompt_tokens},
	 * {@code completion_tokens}) and of the Responses API ({@code input_tokens},
	 * {@code output_tokens}, also inside {@code response} of its
	 * {@code response.completed} event).
	 */
	private static final UsageFields USAGE = UsageFields.in(Set.of("usage"), Set.of("prompt_tokens", "input_tokens"),
			Set.of("completion_tokens", "output_tokens"));

	private static final StreamDecoder STREAM = new OpenAiChatDecoder();

	private final OpenAiProfile profile;

	private OpenAi(OpenAiProfile profile) {
		this.profile = profile;
	}

	/** The profile: the provider's own codes and statuses. */
	OpenAiProfile profile() {
		return this.profile;
	}

	@Override
	public String id() {
		return this.profile.id();
	}

	@Override
	public ProviderErrorClassifier classifier(ClassifierSettings settings) {
		return new OpenAiClassifier(this.profile, settings);
	}

	@Override
	public WaitHeaders waitHeaders() {
		return WAIT;
	}

	@Override
	public LimitHeaders limitHeaders() {
		return LIMITS;
	}

	@Override
	public UsageFields usageFields() {
		return USAGE;
	}

	@Override
	public @Nullable CanaryFormat canaryFormat() {
		return this.profile.canary();
	}

	@Override
	public StreamDecoder streamDecoder() {
		return STREAM;
	}

	@Override
	public String toString() {
		return this.profile.id();
	}

}
