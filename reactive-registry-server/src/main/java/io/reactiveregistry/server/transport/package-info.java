/**
 * The RSocket edge, over TCP and WebSocket: accepts connections (SETUP and frame guards, budgets,
 * backpressure), reads the route from composite metadata, turns a command route's body into a core
 * command ({@code wire.CommandDecoder}) and its outcome into the answer ({@code wire.OutcomeEncoder},
 * {@code errors.ErrorTable}), serves reads and streams. One {@link
 * io.reactiveregistry.server.transport.ConnectionSession} per connection; its close is the one place
 * that releases what the connection owned.
 */
package io.reactiveregistry.server.transport;
