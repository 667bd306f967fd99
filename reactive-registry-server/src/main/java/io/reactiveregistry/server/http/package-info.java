/**
 * The HTTP door: liveness, readiness, Prometheus metrics, the dashboard, every request-response
 * route as {@code POST /api/v1/<route>} (registrations and heartbeats included), reads of the
 * registry as {@code GET}s, and the watch and the audit trail as server-sent events. It frames,
 * bounds and authenticates ({@code Authorization: Bearer}, or a client certificate); what a request
 * means and who may make it is the {@code request} layer's.
 */
package io.reactiveregistry.server.http;
