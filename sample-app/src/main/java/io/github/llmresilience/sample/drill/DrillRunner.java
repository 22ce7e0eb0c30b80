package io.github.llmresilience.sample.drill;

import java.util.List;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Runs the drill named by {@code --drill=outage|outage-failover|throttle|quota|hang}
 * (with {@code --breaker=on|off} and
 * {@code --client=webclient|spring-ai|spring-ai-plain}) once the application has started,
 * and prints its report; {@code SampleApplication} then exits.
 */
@Component
@ConditionalOnProperty("drill")
class DrillRunner implements ApplicationRunner {

	private final Drill drill;

	DrillRunner(Drill drill) {
		this.drill = drill;
	}

	@Override
	public void run(ApplicationArguments args) {
		boolean breaker = switch (option(args, "breaker", "on")) {
			case "on" -> true;
			case "off" -> false;
			default -> throw new IllegalArgumentException("--breaker must be on or off");
		};
		DrillPlan plan = switch (option(args, "drill", "")) {
			case "outage" -> DrillPlan.outage(breaker);
			case "outage-failover" -> DrillPlan.outageFailover(breaker);
			case "throttle" -> DrillPlan.throttle(breaker);
			case "quota" -> DrillPlan.quota(breaker);
			case "hang" -> DrillPlan.hang(breaker);
			default ->
				throw new IllegalArgumentException("--drill must be outage, outage-failover, throttle, quota or hang");
		};
		DrillClient client = DrillClient.of(option(args, "client", "webclient"));
		// The report is the drill's product, for the terminal: plain lines on stdout.
		this.drill.run(plan, client).lines().forEach(System.out::println);
	}

	private static String option(ApplicationArguments args, String name, String fallback) {
		List<String> values = args.getOptionValues(name);
		return (values == null || values.isEmpty()) ? fallback : values.get(values.size() - 1);
	}

}
