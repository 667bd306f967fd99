package io.reactiveregistry.protocol.message;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What an instance's owner says of it, as in Eureka: {@code UP} (it serves, as its health
 * allows), {@code OUT_OF_SERVICE} (taken out of traffic on purpose: a deploy, a drain) or
 * {@code DOWN} (it knows it cannot serve). It is carried in the registration itself, so it
 * needs no route of its own, is redone after a reconnect and replicated like any registration:
 * {@code enabled} is true exactly when the status is {@code UP}, and a status other than
 * {@code UP} is shown as the metadata key {@value #METADATA_KEY}. Health stays the server's
 * judgement (heartbeats, health checks), and an operator's {@code enabled} override still wins.
 */
public enum InstanceStatus {
  UP, DOWN, OUT_OF_SERVICE;

  /** The metadata key that shows a status other than {@code UP}. */
  public static final String METADATA_KEY = "registry.status";

  /** {@code instance} as its owner registers it with this status. */
  public InstanceBody applyTo(InstanceBody instance) {
    Map<String, String> metadata = instance.metadata() == null ? new HashMap<>() : new HashMap<>(instance.metadata());
    if (this == UP) {
      metadata.remove(METADATA_KEY);
    } else {
      metadata.put(METADATA_KEY, name());
    }
    return new InstanceBody(instance.instanceId(), instance.ip(), instance.port(), instance.cluster(),
        instance.weight(), this == UP, instance.healthy(), instance.ephemeral(), Map.copyOf(metadata));
  }

  /**
   * The status an instance was registered with: its metadata's when that names one, otherwise
   * {@code OUT_OF_SERVICE} when it was registered disabled, else {@code UP}.
   */
  public static InstanceStatus of(InstanceBody instance) {
    InstanceStatus shown = parse(instance.metadata() == null ? null : instance.metadata().get(METADATA_KEY));
    if (shown != null) {
      return shown;
    }
    return Boolean.FALSE.equals(instance.enabled()) ? OUT_OF_SERVICE : UP;
  }

  /** The status named {@code value} (any case), or null when it names none. */
  public static @Nullable InstanceStatus parse(@Nullable String value) {
    if (value == null) {
      return null;
    }
    for (InstanceStatus status : values()) {
      if (status.name().equalsIgnoreCase(value)) {
        return status;
      }
    }
    return null;
  }
}
