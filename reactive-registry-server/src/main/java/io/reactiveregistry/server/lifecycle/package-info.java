/** Drives the core's time-based rules: heartbeat expiry now; cleanup and health checks later. */
package io.reactiveregistry.server.lifecycle;
