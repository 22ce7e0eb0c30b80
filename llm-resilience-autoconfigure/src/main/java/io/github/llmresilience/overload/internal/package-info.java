/**
 * Overload control's mechanisms: a failure domain's adaptive limit, a provider's local
 * refusal window, and the two together as one target's admission. Mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.overload.internal;

import org.jspecify.annotations.NullMarked;
