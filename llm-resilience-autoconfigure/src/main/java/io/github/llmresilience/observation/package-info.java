/**
 * Traces: one Micrometer {@code Observation} per call ({@code llm.resilience.call}) and
 * one per attempt ({@code llm.resilience.attempt}, the call's child), with events on the
 * call for every target passed over and every wait; a provider client's own observation
 * inside an attempt (Spring AI's {@code gen_ai.client.operation}) becomes the attempt's
 * child. Needs only Micrometer's Observation API; the auto-configuration installs it when
 * the application has an {@code ObservationRegistry}.
 */
@NullMarked
package io.github.llmresilience.observation;

import org.jspecify.annotations.NullMarked;
