/**
 * What survives a restart: service definitions, persistent instances and operator overrides,
 * kept as an Apache Ratis state machine on local disk (a group of one node by default). The core
 * decides each change; storage writes the changes in decision order, acknowledges them once
 * committed, snapshots them to bound the log, and hands them back to the core at start.
 */
package io.reactiveregistry.server.storage;
