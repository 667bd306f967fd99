/**
 * HTTP for operations: liveness, readiness, Prometheus metrics and a read-only JSON view of the
 * registry. Nothing here changes state; changes go through RSocket routes.
 */
package io.reactiveregistry.server.http;
