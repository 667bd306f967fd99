/**
 * The registry core: a plain, synchronous, deterministic state machine. Commands go in
 * (register, heartbeat, deregister, release a connection, expire), change events come out, each
 * stamped with the next revision of the server's single counter.
 *
 * <p>It imports nothing from Reactor, Netty, RSocket or Jackson and reads time only from the
 * {@link java.time.InstantSource} it is handed, so every rule of the contract is tested here in
 * microseconds on virtual time. It is not thread-safe: one writer at a time (see
 * {@code runtime.RegistryRuntime}).
 */
package io.reactiveregistry.server.core;
