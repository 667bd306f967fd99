/**
 * Where the pure core meets concurrency: {@link io.reactiveregistry.server.runtime.RegistryRuntime}
 * is the one place commands are applied. One monitor serialises every command, the publication of
 * its events to subscribers and listeners, and the queueing of its durable changes, so subscribers
 * see revision order and storage sees decision order; an answer that must be durable waits for the
 * commit outside the monitor.
 */
package io.reactiveregistry.server.runtime;
