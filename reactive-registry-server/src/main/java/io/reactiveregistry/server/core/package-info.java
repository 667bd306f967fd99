/**
 * The registry core: a plain, synchronous, deterministic state machine. {@link
 * io.reactiveregistry.server.core.Command} records go in (register, heartbeat, deregister, release a
 * connection, administer services and overrides, and the lifecycle's expire, clean up, stalled and
 * health results); an {@link io.reactiveregistry.server.core.Outcome} comes back for each (a refusal
 * too, as {@code Refused}), with one change event per change, stamped with the next revision of the
 * server's single counter, and the durable changes storage must keep. Reads go through {@link
 * io.reactiveregistry.server.core.RegistryReads}.
 *
 * <p>{@link io.reactiveregistry.server.core.Registry} sequences the parts, one concern each:
 * {@code ServiceCatalog}, {@code Instances}, {@code Ownerships} and {@code OwnershipRules},
 * {@code Overrides}, {@code Expiry}, {@code ChangeLog}.
 *
 * <p>It imports nothing from Reactor, Netty, RSocket or Jackson and reads time only from the
 * {@link java.time.InstantSource} it is handed, so every rule of the contract is tested here in
 * microseconds on virtual time. It is not thread-safe: one writer at a time (see
 * {@code runtime.RegistryRuntime}).
 */
package io.reactiveregistry.server.core;
