package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.NamespaceList;
import io.reactiveregistry.protocol.message.NamespaceSummary;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli namespaces}: the namespaces that hold services, one line each. */
@Command(name = "namespaces", mixinStandardHelpOptions = true,
    description = "Lists the namespaces that hold services (those the token may read): services, instances, healthy ones.")
final class NamespacesCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Option(names = "--json", description = "The namespaces as JSON, one per line")
  boolean json;

  @Override
  public Integer call() {
    return cli.run(session -> {
      NamespaceList list = JsonCodec.json().decode(session.request(Route.NAMESPACE_LIST.routeName(), "{}"),
          NamespaceList.class);
      if (json) {
        list.namespaces().forEach(namespace -> cli.print(JsonCodec.json().encodeToString(namespace)));
        return;
      }
      Table table = new Table("NAMESPACE", "SERVICES", "INSTANCES", "HEALTHY");
      for (NamespaceSummary namespace : list.namespaces()) {
        table.row(namespace.namespace(), String.valueOf(namespace.services()), String.valueOf(namespace.instances()),
            String.valueOf(namespace.healthyInstances()));
      }
      table.print(cli.out);
    });
  }
}
