package io.github.llmresilience.spend;

/**
 * One failure domain's spend at one moment: its current window against the median of its
 * past windows.
 *
 * @param domain the failure domain
 * @param unit {@code price} when its targets have a price, else {@code tokens}
 * @param level where its spend per call stands: {@code normal}, {@code alert} or
 * {@code tripped}
 * @param windowCalls answers with usage in the current window (the fleet's, in fleet
 * mode, as of the last sync and this pod's since)
 * @param windowSpend their spend
 * @param perCall their spend per call, 0 without answers
 * @param median the median spend per call of the past windows, 0 before the first; with
 * answers in the window, the medians of their traffic classes (chain and pool) weighed by
 * their answers: what the window's answers were expected to spend per call
 * @param ratio {@code perCall} as a multiple of {@code median}, 0 when either is unknown
 * @param windows past windows in the history
 */
public record SpendState(String domain, String unit, String level, long windowCalls, double windowSpend, double perCall,
		double median, double ratio, int windows) {

}
