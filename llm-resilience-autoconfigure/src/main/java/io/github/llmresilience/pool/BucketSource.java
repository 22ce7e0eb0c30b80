package io.github.llmresilience.pool;

import java.util.function.LongSupplier;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TimeMeter;

/**
 * Where a pool's buckets are kept: in this process, or (fleet mode) in a store every pod
 * shares, through a Bucket4j proxy manager.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
@FunctionalInterface
public interface BucketSource {

	/**
	 * The bucket of a key, made with the configuration when it does not exist yet.
	 * @param key the bucket's key: {@code account/model/pool/requests} or
	 * {@code .../tokens}
	 * @param configuration its limits
	 */
	Bucket bucket(String key, BucketConfiguration configuration);

	/** Buckets in this process, on the engine's monotonic time source. */
	static BucketSource local(LongSupplier nanoTime) {
		TimeMeter meter = new TimeMeter() {

			@Override
			public long currentTimeNanos() {
				return nanoTime.getAsLong();
			}

			@Override
			public boolean isWallClockBased() {
				return false;
			}

		};
		return (key, configuration) -> {
			var builder = Bucket.builder().withCustomTimePrecision(meter);
			for (var bandwidth : configuration.getBandwidths()) {
				builder.addLimit(bandwidth);
			}
			return builder.build();
		};
	}

}
