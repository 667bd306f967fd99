/** Benchmarks of the Java client itself: its idle cost, and a fleet of clients through a server restart. */
package io.reactiveregistry.loadtest.client;
