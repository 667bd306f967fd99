/** Benchmarks of the server's own code paths, run in process: what they cost without a network in between. */
package io.reactiveregistry.loadtest.server;
