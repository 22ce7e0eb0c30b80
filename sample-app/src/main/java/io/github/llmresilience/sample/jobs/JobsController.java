package io.github.llmresilience.sample.jobs;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmresilience.sample.answers.ApiError;
import io.github.llmresilience.sample.answers.Question;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Questions answered in the background: submit, look one up, count them by state.
 */
@RestController
@RequestMapping("/v1/jobs")
class JobsController {

	private final JobQueue queue;

	JobsController(JobQueue queue) {
		this.queue = queue;
	}

	@PostMapping
	ResponseEntity<Job> submit(@RequestBody Question question) {
		Job job = this.queue.submit(question.text());
		return ResponseEntity.accepted().location(URI.create("/v1/jobs/" + job.id())).body(job);
	}

	@GetMapping("/{id}")
	ResponseEntity<?> job(@PathVariable String id) {
		return this.queue.find(id)
			.<ResponseEntity<?>>map(ResponseEntity::ok)
			.orElseGet(() -> ResponseEntity.status(HttpStatus.NOT_FOUND)
				.body(ApiError.of("job_not_found", "No job with id '" + id + "'.")));
	}

	/** Jobs by state: {@code {"queued", "running", "succeeded", "dead_letter"}}. */
	@GetMapping
	Map<String, Long> counts() {
		Map<String, Long> counts = new LinkedHashMap<>();
		this.queue.counts().forEach((state, count) -> counts.put(state.id(), count));
		return counts;
	}

}
