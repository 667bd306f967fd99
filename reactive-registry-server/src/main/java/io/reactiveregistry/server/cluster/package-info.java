/**
 * A cluster of equal nodes: its configuration (which node this is, who the members are) and what
 * a node knows of the others. Durable state is replicated through the Raft group of all members
 * ({@code storage}); this package knows no transport.
 */
package io.reactiveregistry.server.cluster;
