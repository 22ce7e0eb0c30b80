package io.github.llmresilience.sample.answers;

/**
 * An answer and the target that served it.
 *
 * @param answer the answer's text
 * @param servedBy the name of the target that answered
 */
public record Answer(String answer, String servedBy) {

}
