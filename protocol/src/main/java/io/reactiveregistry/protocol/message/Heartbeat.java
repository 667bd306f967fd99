package io.reactiveregistry.protocol.message;

/**
 * Body of {@code instance.heartbeat}. With no instance ({@code {}}), it refreshes every instance
 * the connection owns.
 */
public record Heartbeat(String namespace, String group, String service, InstanceBody instance) {

  public static Heartbeat all() {
    return new Heartbeat(null, null, null, null);
  }
}
