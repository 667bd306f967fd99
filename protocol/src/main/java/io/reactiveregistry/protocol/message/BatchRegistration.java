package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** Body of {@code instance.batch-register}: the connection's complete set of instances in a service. */
public record BatchRegistration(@Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable List<InstanceBody> instances) {}
