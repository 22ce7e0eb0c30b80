package io.github.llmresilience.sample.jobs;

import java.time.Clock;

import io.github.llmresilience.sample.answers.Answers;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application's job queue and its worker, which answers through the answers chain.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(JobsProperties.class)
class JobsConfiguration {

	@Bean
	JobQueue jobQueue(JobsProperties properties, Clock clock) {
		return new JobQueue(clock, properties.getMaxAttempts(), properties.getAttemptDelay());
	}

	@Bean
	JobWorker jobWorker(JobQueue queue, Answers answers, JobsProperties properties) {
		return new JobWorker(queue, answers::answer, properties.getConcurrency(), WhenUnavailable.REQUEUE,
				Schedulers.parallel(), properties.getIdlePoll());
	}

}
