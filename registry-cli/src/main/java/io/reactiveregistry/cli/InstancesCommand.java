package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli instances orders}: a service's instances, one line each. */
@Command(name = "instances", mixinStandardHelpOptions = true,
    description = "Lists a service's instances: address, cluster, weight, health, enabled, metadata.")
final class InstancesCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Mixin
  ServiceOptions names;

  @Parameters(index = "0", paramLabel = "<service>", description = "The service")
  String service;

  @Mixin
  ViewOptions view;

  @Option(names = "--json", description = "The snapshot as the server answers it")
  boolean json;

  @Override
  public Integer call() {
    return cli.run(session -> {
      String answer = session.request(Route.SERVICE_QUERY.routeName(), JsonCodec.json().encodeToString(
          view.query(names, service)));
      if (json) {
        cli.print(answer);
        return;
      }
      ServiceSnapshot snapshot = JsonCodec.json().decode(answer, ServiceSnapshot.class);
      Table table = new Table("INSTANCE", "CLUSTER", "WEIGHT", "HEALTHY", "ENABLED", "METADATA");
      for (InstanceBody instance : snapshot.instances()) {
        table.row(Lines.address(instance.ip(), instance.port()), instance.cluster(), String.valueOf(instance.weight()),
            String.valueOf(!Boolean.FALSE.equals(instance.healthy())),
            String.valueOf(!Boolean.FALSE.equals(instance.enabled())), String.join(",",
                Lines.metadata(instance.metadata())));
      }
      table.print(cli.out);
      if (snapshot.protectionTriggered()) {
        cli.err.println("protection triggered: fewer instances serve traffic than the service's protectThreshold asks");
      }
    });
  }
}
