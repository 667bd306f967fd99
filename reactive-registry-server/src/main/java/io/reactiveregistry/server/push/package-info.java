/**
 * The push hub: turns the core's change events into subscription streams. Subscribers of the same
 * view share one {@link io.reactiveregistry.server.push.ViewChannel} and one encoded copy of each
 * event; each subscriber's backlog is bounded and collapses into one fresh snapshot when it
 * overflows.
 *
 * <p>Channels are only touched under the runtime's monitor, together with the core, so a snapshot
 * and the events after it can never overlap or leave a gap.
 */
package io.reactiveregistry.server.push;
