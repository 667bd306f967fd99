package io.reactiveregistry.server.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.RegistryException;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A request's body becomes a command that prints and compares as what it asks. */
class CommandDecoderTest {
  private final Owner alice = new Owner(1, "alice@127.0.0.1");
  private final ServiceKey orders = ServiceKey.of(null, null, "orders");

  private Command decode(Route route, String json) {
    return CommandDecoder.decode(route, alice, Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aRegistrationIsARegisterCommandWithTheContractsDefaultsFilledIn() {
    Command command = decode(Route.INSTANCE_REGISTER,
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080,\"metadata\":{\"zone\":\"a\"}}}");

    assertThat(command).isEqualTo(new Command.Register(alice, orders, true,
        InstanceSpec.of("instance", "127.0.0.5", 8080, null, null, null, Map.of("zone", "a"))));
    assertThat(command.toString()).contains("Register", "orders", "127.0.0.5", "8080", "alice@127.0.0.1");
  }

  @Test
  void everyOtherCommandRouteDecodesToItsCommand() {
    String instance = "\"instance\":{\"ip\":\"127.0.0.5\",\"port\":8080}";
    String id = InstanceSpec.instanceId("127.0.0.5", 8080, "DEFAULT");
    InstanceSpec spec = InstanceSpec.of("instance", "127.0.0.5", 8080, null, null, null, null);

    assertThat(decode(Route.INSTANCE_DEREGISTER, "{\"service\":\"orders\"," + instance + "}"))
        .isEqualTo(new Command.Deregister(alice, orders, id));
    assertThat(decode(Route.INSTANCE_HEARTBEAT, "{}")).isEqualTo(new Command.HeartbeatAll(alice));
    assertThat(decode(Route.INSTANCE_HEARTBEAT, "{\"service\":\"orders\"," + instance + "}"))
        .isEqualTo(new Command.Heartbeat(alice, orders, spec));
    assertThat(decode(Route.INSTANCE_BATCH_REGISTER, "{\"service\":\"orders\",\"instances\":[]}"))
        .isEqualTo(new Command.BatchRegister(alice, orders, List.of()));
    assertThat(decode(Route.ADMIN_SERVICE_CREATE, "{\"service\":\"orders\",\"ephemeral\":false}"))
        .isEqualTo(new Command.CreateService(alice, orders, false, 0.0, null));
    assertThat(decode(Route.ADMIN_SERVICE_UPDATE, "{\"service\":\"orders\",\"protectThreshold\":0.5}"))
        .isEqualTo(new Command.UpdateService(alice, orders, null, 0.5, null));
    assertThat(decode(Route.ADMIN_SERVICE_DELETE, "{\"service\":\"orders\"}"))
        .isEqualTo(new Command.DeleteService(alice, orders));
    assertThat(decode(Route.ADMIN_INSTANCE_PATCH, "{\"service\":\"orders\"," + instance + ",\"weight\":2}"))
        .isEqualTo(new Command.PatchInstance(alice, orders, id, null, 2.0, null));
    assertThat(decode(Route.ADMIN_INSTANCE_UPDATE, "{\"service\":\"orders\"," + instance + ",\"enabled\":false}"))
        .isEqualTo(new Command.OverrideInstance(alice, orders, id,
            io.reactiveregistry.server.core.InstanceOverride.replacing(false, null, null)));
  }

  @Test
  void aBodyThatBreaksARuleIsRefusedNamingTheField() {
    assertThatThrownBy(() -> decode(Route.INSTANCE_REGISTER, "{\"service\":\"orders\"}"))
        .isInstanceOf(EdgeRefusal.class).hasMessage("instance is required");
    assertThatThrownBy(() -> decode(Route.INSTANCE_REGISTER,
        "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.5\",\"port\":70000}}"))
        .isInstanceOf(RegistryException.class).hasMessage("instance.port must be between 1 and 65535");
  }

  @Test
  void everyRouteThatChangesTheRegistryIsInTheTableAndNoReadIs() {
    Set<Route> reads = EnumSet.of(Route.SERVICE_QUERY, Route.SERVICE_LIST, Route.NAMESPACE_LIST, Route.ADMIN_SERVICE_GET,
        Route.ADMIN_SERVICE_INSTANCES, Route.ADMIN_SERVICE_SUBSCRIBERS, Route.ADMIN_CONNECTIONS, Route.ADMIN_TRACE_QUERY,
        Route.SERVER_INFO);
    // Membership changes are the Raft group's, not the registry's: the layer hands them to the storage.
    Set<Route> clusterOperations = EnumSet.of(Route.ADMIN_MEMBERS_ADD, Route.ADMIN_MEMBERS_REMOVE,
        Route.ADMIN_MEMBERS_REPLACE);
    for (Route route : Route.values()) {
      boolean stream = route.interaction() == Interaction.REQUEST_STREAM;
      assertThat(CommandDecoder.decodes(route)).as(route.routeName())
          .isEqualTo(!stream && !reads.contains(route) && !clusterOperations.contains(route));
    }
  }
}
