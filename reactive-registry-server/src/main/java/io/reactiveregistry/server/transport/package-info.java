/**
 * The RSocket door, over TCP and WebSocket: accepts connections (SETUP and frame guards, budgets,
 * backpressure), authenticates the caller (the SETUP's token or client certificate, or a
 * request's own token), reads the route from composite metadata and hands the request to the
 * {@code request} layer, framing its answer as a payload or an {@code APPLICATION_ERROR}. One
 * {@link io.reactiveregistry.server.transport.ConnectionSession} per connection; its close is the
 * one place that releases what the connection owned.
 */
package io.reactiveregistry.server.transport;
