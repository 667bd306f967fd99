package io.reactiveregistry.server.wire;

import io.netty.buffer.ByteBuf;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.BatchRegistration;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceOverride;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.Registration;
import io.reactiveregistry.protocol.message.ServiceDefinition;
import io.reactiveregistry.protocol.message.ServiceRef;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The one table by which a request becomes a core {@link Command}: for each route that changes the
 * registry, how its JSON body is read. Every rule a value must meet is checked by the core type it
 * becomes; this only reads fields. Reads and streams are not commands and are not here.
 */
public final class CommandDecoder {
  /** Reads one route's body, sent by {@code owner}'s connection. */
  @FunctionalInterface
  private interface BodyDecoder {
    Command decode(Owner owner, ByteBuf body);
  }

  private static final JsonCodec json = JsonCodec.json();
  private static final Map<Route, BodyDecoder> table = new EnumMap<>(Route.class);

  static {
    table.put(Route.INSTANCE_REGISTER, (owner, body) -> register(owner, json.decode(body, Registration.class)));
    table.put(Route.INSTANCE_BATCH_REGISTER,
        (owner, body) -> batchRegister(owner, json.decode(body, BatchRegistration.class)));
    table.put(Route.INSTANCE_DEREGISTER, (owner, body) -> deregister(owner, json.decode(body, InstanceRef.class)));
    table.put(Route.INSTANCE_HEARTBEAT, (owner, body) -> heartbeat(owner, json.decode(body, Heartbeat.class)));
    table.put(Route.ADMIN_SERVICE_CREATE,
        (owner, body) -> createService(owner, json.decode(body, ServiceDefinition.class)));
    table.put(Route.ADMIN_SERVICE_UPDATE,
        (owner, body) -> updateService(owner, json.decode(body, ServiceDefinition.class)));
    table.put(Route.ADMIN_SERVICE_DELETE, (owner, body) -> {
      ServiceRef ref = json.decode(body, ServiceRef.class);
      return new Command.DeleteService(owner, service(ref.namespace(), ref.group(), ref.service()));
    });
    table.put(Route.ADMIN_INSTANCE_UPDATE,
        (owner, body) -> override(owner, json.decode(body, InstanceOverride.class), false));
    table.put(Route.ADMIN_INSTANCE_PATCH,
        (owner, body) -> override(owner, json.decode(body, InstanceOverride.class), true));
  }

  private CommandDecoder() {}

  /** Whether the route changes the registry, and so is decoded here. */
  public static boolean decodes(Route route) {
    return table.containsKey(route);
  }

  /** The command a request asks for; a body that breaks a rule is refused naming the field. */
  public static Command decode(Route route, Owner owner, ByteBuf body) {
    BodyDecoder decoder = table.get(route);
    if (decoder == null) {
      throw new IllegalArgumentException("route " + route + " is not a command");
    }
    return decoder.decode(owner, body);
  }

  /** {@code instance.register}'s command from its typed body (a door that builds the body itself). */
  public static Command register(Owner owner, Registration body) {
    return new Command.Register(owner, service(body.namespace(), body.group(), body.service()),
        body.ephemeral() == null || body.ephemeral(), WireCommands.instance("instance", body.instance()));
  }

  private static Command batchRegister(Owner owner, BatchRegistration body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    if (body.instances() == null) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "instances is required (an empty list deregisters all)");
    }
    List<InstanceSpec> specs = new ArrayList<>(body.instances().size());
    for (int i = 0; i < body.instances().size(); i++) {
      specs.add(WireCommands.instance("instances[" + i + "]", body.instances().get(i)));
    }
    return new Command.BatchRegister(owner, key, specs);
  }

  private static Command deregister(Owner owner, InstanceRef body) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    WireCommands.InstanceAddress address = WireCommands.address("instance", body.instance());
    return new Command.Deregister(owner, key, address.instanceId());
  }

  /** An empty heartbeat (no service, no instance) refreshes everything the connection owns. */
  private static Command heartbeat(Owner owner, Heartbeat body) {
    if (body.instance() == null && body.service() == null) {
      return new Command.HeartbeatAll(owner);
    }
    return new Command.Heartbeat(owner, service(body.namespace(), body.group(), body.service()),
        WireCommands.instance("instance", body.instance()));
  }

  private static Command createService(Owner owner, ServiceDefinition body) {
    return new Command.CreateService(owner, service(body.namespace(), body.group(), body.service()),
        body.ephemeral() == null || body.ephemeral(),
        body.protectThreshold() == null ? 0.0 : body.protectThreshold(), body.metadata());
  }

  private static Command updateService(Owner owner, ServiceDefinition body) {
    return new Command.UpdateService(owner, service(body.namespace(), body.group(), body.service()),
        body.ephemeral(), body.protectThreshold(), body.metadata());
  }

  private static Command override(Owner owner, InstanceOverride body, boolean patch) {
    ServiceKey key = service(body.namespace(), body.group(), body.service());
    String instanceId = WireCommands.address("instance", body.instance()).instanceId();
    return patch
        ? new Command.PatchInstance(owner, key, instanceId, body.enabled(), body.weight(), body.metadata())
        : new Command.OverrideInstance(owner, key, instanceId,
            io.reactiveregistry.server.core.InstanceOverride.replacing(body.enabled(), body.weight(),
                body.metadata()));
  }

  private static ServiceKey service(String namespace, String group, String service) {
    return ServiceKey.of(namespace, group, service);
  }
}
