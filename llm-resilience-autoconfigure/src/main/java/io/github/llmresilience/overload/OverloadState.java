package io.github.llmresilience.overload;

/**
 * What overload control holds for one target: its failure domain's limit on calls in
 * flight and its provider's local refusal rate.
 *
 * @param limit the failure domain's adaptive limit on calls in flight; -1 when
 * concurrency is not limited
 * @param inFlight the failure domain's calls in flight from this pod; -1 when concurrency
 * is not limited
 * @param refusalProbability the share of its first-shed traffic class that its provider's
 * account refuses locally now, 0 to 1; -1 when client-side throttling is off
 * @param requests requests counted in the throttling window; -1 when off
 * @param accepts accepts counted in the throttling window; -1 when off
 */
public record OverloadState(int limit, int inFlight, double refusalProbability, long requests, long accepts) {

}
