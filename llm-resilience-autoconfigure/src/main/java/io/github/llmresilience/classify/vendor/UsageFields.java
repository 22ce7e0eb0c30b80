package io.github.llmresilience.classify.vendor;

import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Where a vendor reports the tokens an answer used.
 *
 * @param containers names of the object that holds the counts, at any of the first levels
 * of the body ({@code usage}, {@code usageMetadata})
 * @param nestedContainers names of such an object that counts only under a given parent,
 * by name, each with its parents ({@code billed_units} under {@code meta})
 * @param preferred names of an object inside a container whose counts replace the
 * container's ({@code billed_units} beside {@code tokens})
 * @param input names of input counts, added up
 * @param output names of output counts, added up
 * @param inputHeader the header of the input count when the body has none, or
 * {@code null}
 * @param outputHeader the header of the output count, or {@code null}
 */
public record UsageFields(Set<String> containers, Map<String, Set<String>> nestedContainers, Set<String> preferred,
		Set<String> input, Set<String> output, @Nullable String inputHeader, @Nullable String outputHeader) {

	/** No usage reported. */
	public static final UsageFields NONE = new UsageFields(Set.of(), Map.of(), Set.of(), Set.of(), Set.of(), null,
			null);

	/** Counts in a container at any of the first levels. */
	public static UsageFields in(Set<String> containers, Set<String> input, Set<String> output) {
		return new UsageFields(containers, Map.of(), Set.of(), input, output, null, null);
	}

	/** The same, with a container that counts only under the given parent. */
	public UsageFields withNested(String container, String parent) {
		return new UsageFields(this.containers, Map.of(container, Set.of(parent)), this.preferred, this.input,
				this.output, this.inputHeader, this.outputHeader);
	}

	/** The same, with an object inside a container whose counts win. */
	public UsageFields withPreferred(String name) {
		return new UsageFields(this.containers, this.nestedContainers, Set.of(name), this.input, this.output,
				this.inputHeader, this.outputHeader);
	}

	/** The same, with headers read when the body reports no usage. */
	public UsageFields withHeaders(String inputHeader, String outputHeader) {
		return new UsageFields(this.containers, this.nestedContainers, this.preferred, this.input, this.output,
				inputHeader, outputHeader);
	}

}
