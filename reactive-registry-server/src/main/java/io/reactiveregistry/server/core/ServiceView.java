package io.reactiveregistry.server.core;

import java.util.List;

/** A view of a service at a revision: what {@code service.query} answers and a SNAPSHOT carries. */
public record ServiceView(
    ServiceKey service, boolean exists, boolean ephemeral, long revision, boolean protectionTriggered,
    List<InstanceView> instances) {}
