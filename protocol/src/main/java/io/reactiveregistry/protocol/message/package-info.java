/**
 * One immutable record per JSON body of the contract. Fields that the contract makes optional are
 * boxed and may be {@code null} when absent; the server fills the documented defaults. Unknown
 * fields are ignored by the codec, and null fields are left out when encoding.
 */
package io.reactiveregistry.protocol.message;
