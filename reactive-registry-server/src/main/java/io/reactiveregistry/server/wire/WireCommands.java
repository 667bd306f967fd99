package io.reactiveregistry.server.wire;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.rules.Addresses;
import io.reactiveregistry.protocol.rules.InstanceRules;
import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.errors.EdgeRefusal;

/** Contract bodies as validated core values. Every rule lives in the core; this only reads fields. */
final class WireCommands {
  private WireCommands() {}

  public static InstanceSpec instance(String field, InstanceBody body) {
    if (body == null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, field + " is required");
    }
    return InstanceSpec.of(field, body.ip(), body.port(), body.cluster(), body.weight(), body.enabled(),
        body.metadata());
  }

  /** The identifying part of an instance: normalised ip, port and cluster. */
  public record InstanceAddress(String ip, int port, String cluster) {
    public String instanceId() {
      return InstanceSpec.instanceId(ip, port, cluster);
    }
  }

  public static InstanceAddress address(String field, InstanceBody body) {
    if (body == null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, field + " is required");
    }
    return new InstanceAddress(
        Addresses.normalize(field + ".ip", body.ip()),
        InstanceRules.port(field + ".port", body.port()),
        Names.orDefault(field + ".cluster", body.cluster(), InstanceSpec.DEFAULT_CLUSTER));
  }
}
