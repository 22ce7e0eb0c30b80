package io.github.llmresilience.data.redis;

/** Whether a Redis answers, for tests in other packages. */
public final class FleetPodsAccess {

	private FleetPodsAccess() {
	}

	public static boolean reachable(String host, int port) {
		return FleetPods.reachable(host, port);
	}

}
