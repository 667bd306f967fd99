package io.reactiveregistry.protocol.message;

import java.util.List;

/** Body of {@code instance.batch-register}: the connection's complete set of instances in a service. */
public record BatchRegistration(String namespace, String group, String service, List<InstanceBody> instances) {}
