/**
 * Spans of the server's work on a request, in the caller's W3C trace when it sent one, exported
 * with OpenTelemetry's OTLP exporter when an endpoint is set; with none set nothing is made at all.
 * OpenTelemetry's types stay in this package: the request layer sees {@link
 * io.reactiveregistry.server.tracing.Tracing} and {@link io.reactiveregistry.server.tracing.RequestSpan}.
 */
@NullMarked
package io.reactiveregistry.server.tracing;

import org.jspecify.annotations.NullMarked;
