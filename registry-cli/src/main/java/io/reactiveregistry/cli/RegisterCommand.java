package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.Registration;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import reactor.core.Disposable;
import reactor.core.Disposables;

/**
 * {@code registry-cli register orders 127.0.0.5:8080 --hold}: an ephemeral instance lives as long
 * as the connection that registered it, so without {@code --persistent} the command holds the
 * connection until Ctrl-C, heartbeating the instance meanwhile at the interval the server
 * returned; it refuses to register one that would be gone as it exits.
 */
@Command(name = "register", mixinStandardHelpOptions = true,
    description = {"Registers an instance. An ephemeral one (the default) lives while this command holds its "
        + "connection: give --hold, and Ctrl-C deregisters it. A --persistent one stays until deregistered.",
        "Prints the server's answer (instanceId, revision, heartbeat timings)."})
final class RegisterCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Mixin
  ServiceOptions names;

  @Parameters(index = "0", paramLabel = "<service>", description = "The service")
  String service;

  @Parameters(index = "1", paramLabel = "<ip:port>", converter = Address.Converter.class,
      description = "The instance's address, e.g. 127.0.0.5:8080 or [::1]:8080")
  Address address;

  @Option(names = "--cluster", description = "The instance's cluster (default: DEFAULT)")
  String cluster;

  @Option(names = "--weight", description = "The instance's weight (default: 1.0)")
  Double weight;

  @Option(names = "--disabled", description = "Registered out of traffic (enabled: false)")
  boolean disabled;

  @Option(names = {"-m", "--metadata"}, paramLabel = "key=value", description = "Metadata (repeatable)")
  Map<String, String> metadata = new LinkedHashMap<>();

  @Option(names = "--persistent", description = "A persistent instance: health-checked by the server, kept until "
      + "deregistered")
  boolean persistent;

  @Option(names = "--hold", description = "Keep the connection, and so the ephemeral instance, until Ctrl-C")
  boolean hold;

  @Override
  public Integer call() {
    if (!persistent && !hold) {
      cli.err.println("an ephemeral instance is released when its connection closes, as this command exits: "
          + "add --hold to keep it registered until Ctrl-C, or --persistent");
      return RegistryCli.USAGE;
    }
    InstanceBody instance = new InstanceBody(null, address.ip(), address.port(), cluster, weight,
        disabled ? Boolean.FALSE : null, null, null, metadata);
    Registration body = new Registration(names.namespace, names.group, service, !persistent, instance);
    return cli.run(session -> {
      String answer = session.request(Route.INSTANCE_REGISTER.routeName(), JsonCodec.json().encodeToString(body));
      cli.print(answer);
      if (hold) {
        // Held ephemeral instances heartbeat at the interval the server returned, as a client
        // does: the connection alone keeps an instance only while it is open, and the server
        // judges one that sends no heartbeats unhealthy, then removes it.
        Disposable heartbeats = persistent ? Disposables.disposed() : session.every(
            Duration.ofMillis(JsonCodec.json().decode(answer, RegisterResult.class).heartbeatIntervalMs()),
            Route.INSTANCE_HEARTBEAT.routeName(), JsonCodec.json().encodeToString(
                new Heartbeat(names.namespace, names.group, service, instance)));
        try {
          cli.hold(session);
        } finally {
          heartbeats.dispose();
        }
      }
    });
  }
}
