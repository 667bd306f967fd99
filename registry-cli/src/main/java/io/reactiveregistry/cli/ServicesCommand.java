package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.protocol.message.ServiceListQuery;
import io.reactiveregistry.protocol.message.ServiceSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli services}: every service of a namespace, one line each. */
@Command(name = "services", mixinStandardHelpOptions = true,
    description = "Lists the services of a namespace (every group, unless --group): type, instances, healthy ones.")
final class ServicesCommand implements Callable<Integer> {
  private static final int PAGE = 1_000;

  @ParentCommand
  RegistryCli cli;

  @Option(names = {"-n", "--namespace"}, defaultValue = "public", description = "Namespace. Default: ${DEFAULT-VALUE}")
  String namespace;

  @Option(names = {"-g", "--group"}, description = "Only this group")
  String group;

  @Option(names = "--prefix", description = "Only services whose name starts with this")
  String prefix;

  @Option(names = "--json", description = "The services as JSON, one per line")
  boolean json;

  @Override
  public Integer call() {
    return cli.run(session -> {
      List<ServiceSummary> services = new ArrayList<>();
      for (int page = 1; ; page++) {
        String answer = session.request(Route.SERVICE_LIST.routeName(),
            JsonCodec.json().encodeToString(new ServiceListQuery(namespace, group, prefix, page, PAGE)));
        List<ServiceSummary> listed = JsonCodec.json().decode(answer, ServiceList.class).services();
        services.addAll(listed);
        if (listed.size() < PAGE) {
          break;
        }
      }
      if (json) {
        services.forEach(service -> cli.print(JsonCodec.json().encodeToString(service)));
        return;
      }
      Table table = new Table("GROUP", "SERVICE", "TYPE", "INSTANCES", "HEALTHY");
      for (ServiceSummary service : services) {
        table.row(service.group(), service.service(), service.ephemeral() ? "ephemeral" : "persistent",
            String.valueOf(service.instanceCount()), String.valueOf(service.healthyCount()));
      }
      table.print(cli.out);
    });
  }
}
