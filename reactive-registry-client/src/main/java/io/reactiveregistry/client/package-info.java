/**
 * The Java client of the reactive registry: {@link io.reactiveregistry.client.RegistryClient}
 * registers instances and keeps them alive, watches services as folded, pushed views, chooses an
 * instance to call, and survives reconnects and failovers by registering and subscribing again.
 * Every operation is non-blocking ({@code Mono}/{@code Flux}).
 */
@NullMarked
package io.reactiveregistry.client;

import org.jspecify.annotations.NullMarked;
