package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/**
 * Body of {@code instance.heartbeat}. With no instance ({@code {}}), it refreshes every instance
 * the connection owns.
 */
public record Heartbeat(@Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable InstanceBody instance) {

  public static Heartbeat all() {
    return new Heartbeat(null, null, null, null);
  }
}
