/**
 * The server's meters, named in one place ({@link io.reactiveregistry.server.metrics.ServerMeters})
 * with bounded tags only: a route, a cause, an error code — never a service or an instance.
 */
package io.reactiveregistry.server.metrics;
