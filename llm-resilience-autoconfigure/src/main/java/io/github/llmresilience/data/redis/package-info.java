/**
 * The fleet's store on Redis, through Spring Data Redis and Lettuce (reactive): one
 * script per pod per sync, pub/sub for hints.
 */
@NullMarked
package io.github.llmresilience.data.redis;

import org.jspecify.annotations.NullMarked;
