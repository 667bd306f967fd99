package io.reactiveregistry.server.core;

/** Where an instance is, by value: its service and its id there. */
public record InstanceAddress(ServiceKey service, String instanceId) {}
