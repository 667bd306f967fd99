/**
 * One immutable record per JSON body of the contract. Fields that the contract makes optional are
 * boxed and may be {@code null} when absent; the server fills the documented defaults. Unknown
 * fields are ignored by the codec, and null fields are left out when encoding.
 *
 * <p>Nullness (JSpecify): every component of a request body is {@code @Nullable}, since a peer may
 * leave any field out and the server answers that with a rule naming it; in answers, only what the
 * contract says may be absent is.
 */
@NullMarked
package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.NullMarked;
