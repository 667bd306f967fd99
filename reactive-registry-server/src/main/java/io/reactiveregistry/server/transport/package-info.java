/**
 * The RSocket edge: accepts connections, reads the route from composite metadata, decodes the
 * JSON body, calls the core through the runtime, and encodes the answer or the error. One
 * {@link io.reactiveregistry.server.transport.ConnectionSession} per connection; its close is the
 * one place that releases what the connection owned.
 */
package io.reactiveregistry.server.transport;
