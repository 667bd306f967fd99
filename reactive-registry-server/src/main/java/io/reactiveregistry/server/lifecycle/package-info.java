/**
 * Drives the core's time-based rules: a ticker applies heartbeat deadlines and cleanup and notices
 * when the server itself stalled; the health checker probes persistent instances and records the
 * results. Both only build commands and hand them to the runtime.
 */
package io.reactiveregistry.server.lifecycle;
