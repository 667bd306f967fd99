package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceRef;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli deregister postgres 127.0.0.9:5432}. */
@Command(name = "deregister", mixinStandardHelpOptions = true,
    description = "Removes an instance (a persistent one, or an ephemeral one this token may remove).")
final class DeregisterCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Mixin
  ServiceOptions names;

  @Parameters(index = "0", paramLabel = "<service>", description = "The service")
  String service;

  @Parameters(index = "1", paramLabel = "<ip:port>", converter = Address.Converter.class,
      description = "The instance's address")
  Address address;

  @Option(names = "--cluster", description = "The instance's cluster (default: DEFAULT)")
  String cluster;

  @Option(names = "--json", description = "The server's answer as JSON")
  boolean json;

  @Override
  public Integer call() {
    InstanceRef body = new InstanceRef(names.namespace, names.group, service,
        InstanceBody.ref(address.ip(), address.port(), cluster));
    return cli.run(session -> {
      String answer = session.request(Route.INSTANCE_DEREGISTER.routeName(), JsonCodec.json().encodeToString(body));
      DeregisterResult result = JsonCodec.json().decode(answer, DeregisterResult.class);
      cli.print(json ? answer : result.removed()
          ? "removed " + Lines.address(address.ip(), address.port()) + " from " + service + " (#" + result.revision() + ")"
          : Lines.address(address.ip(), address.port()) + " was not registered in " + service);
    });
  }
}
