/**
 * What every settings record shares: the exception that names the component a record
 * rejects, so that whoever built the record from configuration can name the property.
 */
@NullMarked
package io.github.llmresilience.settings;

import org.jspecify.annotations.NullMarked;
