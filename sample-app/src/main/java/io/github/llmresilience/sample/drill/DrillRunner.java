package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;

import io.github.llmresilience.sample.answers.AnswersProperties;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Runs the drill named by {@code --drill=outage|outage-failover|throttle|quota|hang}
 * (with {@code --breaker=on|off} and
 * {@code --client=webclient|spring-ai|spring-ai-plain|langchain4j|langchain4j-plain}) or
 * {@code --drill=fleet} (with {@code --pods=40 --rpm=300 --fleet=on|off} and
 * {@code --time-scale=1}) or {@code --drill=pools} (with {@code --pools=on|off},
 * {@code --rpm=60} and {@code --time-scale=1}) or {@code --drill=pools-fleet} (with
 * {@code --fleet=on|equal|off}, {@code --pods=10}, {@code --skew=80}, {@code --rpm=600},
 * {@code --lease-period=5s} and {@code --time-scale=1}) or {@code --drill=brownout} (with
 * {@code --overload-control=on|off}, {@code --capacity=8} and {@code --time-scale=1}) or
 * {@code --drill=tail} (with {@code --hedging=on|off}, {@code --slow-percent=5},
 * {@code --calls=400} and {@code --time-scale=1}) once the application has started, and
 * prints its report; {@code SampleApplication} then exits. The on/off flags of brownout
 * and tail are properties ({@link DrillFlags}), set before the application starts.
 */
@Component
@ConditionalOnProperty("drill")
class DrillRunner implements ApplicationRunner {

	private final Drill drill;

	private final FleetDrill fleetDrill;

	private final PoolsDrill poolsDrill;

	private final PoolsFleetDrill poolsFleetDrill;

	private final BrownoutDrill brownoutDrill;

	private final TailDrill tailDrill;

	private final AnswersProperties answers;

	DrillRunner(Drill drill, FleetDrill fleetDrill, PoolsDrill poolsDrill, PoolsFleetDrill poolsFleetDrill,
			BrownoutDrill brownoutDrill, TailDrill tailDrill, AnswersProperties answers) {
		this.drill = drill;
		this.fleetDrill = fleetDrill;
		this.poolsDrill = poolsDrill;
		this.poolsFleetDrill = poolsFleetDrill;
		this.brownoutDrill = brownoutDrill;
		this.tailDrill = tailDrill;
		this.answers = answers;
	}

	@Override
	public void run(ApplicationArguments args) {
		if (option(args, "drill", "").equals("fleet")) {
			this.fleetDrill.run(fleetPlan(args)).lines().forEach(System.out::println);
			return;
		}
		if (option(args, "drill", "").equals("pools")) {
			this.poolsDrill.run(poolsPlan(args)).lines().forEach(System.out::println);
			return;
		}
		if (option(args, "drill", "").equals("pools-fleet")) {
			this.poolsFleetDrill.run(poolsFleetPlan(args)).lines().forEach(System.out::println);
			return;
		}
		if (option(args, "drill", "").equals("brownout")) {
			this.brownoutDrill.run(brownoutPlan(args, this.answers.getDeadline())).lines().forEach(System.out::println);
			return;
		}
		if (option(args, "drill", "").equals("tail")) {
			this.tailDrill.run(tailPlan(args, this.answers.getDeadline())).lines().forEach(System.out::println);
			return;
		}
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
			default -> throw new IllegalArgumentException(
					"--drill must be outage, outage-failover, throttle, quota, hang, fleet, pools, pools-fleet, "
							+ "brownout or tail");
		};
		DrillClient client = DrillClient.of(option(args, "client", "webclient"));
		// The report is the drill's product, for the terminal: plain lines on stdout.
		this.drill.run(plan, client).lines().forEach(System.out::println);
	}

	static FleetDrillPlan fleetPlan(ApplicationArguments args) {
		boolean fleet = switch (option(args, "fleet", "on")) {
			case "on" -> true;
			case "off" -> false;
			default -> throw new IllegalArgumentException("--fleet must be on or off");
		};
		FleetDrillPlan plan = FleetDrillPlan.of(number(args, "pods", "40"), number(args, "rpm", "300"), fleet);
		return plan.scaled(timeScale(args));
	}

	static PoolsDrillPlan poolsPlan(ApplicationArguments args) {
		boolean pools = switch (option(args, "pools", "on")) {
			case "on" -> true;
			case "off" -> false;
			default -> throw new IllegalArgumentException("--pools must be on or off");
		};
		PoolsDrillPlan plan = PoolsDrillPlan.of(pools, number(args, "rpm", "60"));
		return plan.scaled(timeScale(args));
	}

	static PoolsFleetDrillPlan poolsFleetPlan(ApplicationArguments args) {
		PoolsFleetDrillPlan plan = PoolsFleetDrillPlan.of(PoolsFleetDrillPlan.Sharing.of(option(args, "fleet", "on")),
				number(args, "pods", "10"), number(args, "skew", "80"), number(args, "rpm", "600"));
		String period = option(args, "lease-period", "5s");
		Duration leasePeriod;
		try {
			leasePeriod = DurationStyle.detectAndParse(period);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("--lease-period must be a duration such as 1s, was '" + period + "'");
		}
		return plan.leasePeriod(leasePeriod).scaled(timeScale(args));
	}

	static BrownoutDrillPlan brownoutPlan(ApplicationArguments args, Duration deadline) {
		return BrownoutDrillPlan.of(number(args, "capacity", "8"), deadline).scaled(timeScale(args));
	}

	static TailDrillPlan tailPlan(ApplicationArguments args, Duration deadline) {
		String percent = option(args, "slow-percent", "5");
		double slowPercent;
		try {
			slowPercent = Double.parseDouble(percent);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--slow-percent must be a number, was '" + percent + "'");
		}
		return TailDrillPlan.of(slowPercent, number(args, "calls", "400"), deadline).scaled(timeScale(args));
	}

	private static double timeScale(ApplicationArguments args) {
		String scale = option(args, "time-scale", "1");
		try {
			return Double.parseDouble(scale);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--time-scale must be a number, was '" + scale + "'");
		}
	}

	private static int number(ApplicationArguments args, String name, String fallback) {
		String value = option(args, name, fallback);
		try {
			return Integer.parseInt(value);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("--" + name + " must be a whole number, was '" + value + "'");
		}
	}

	private static String option(ApplicationArguments args, String name, String fallback) {
		List<String> values = args.getOptionValues(name);
		return (values == null || values.isEmpty()) ? fallback : values.get(values.size() - 1);
	}

}
