/**
 * Where the pure core meets concurrency: one monitor serialises every command and the publication
 * of its events, and a ticker drives the core's deadlines.
 */
package io.reactiveregistry.server.runtime;
