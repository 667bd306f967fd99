package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ConnectionList;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli connections}: who is connected, and what each connection owns. */
@Command(name = "connections", mixinStandardHelpOptions = true,
    description = "Lists the RSocket connections open to the target: id, client, address, transport, principal, "
        + "open since, instances owned, subscriptions (admin permission).")
final class ConnectionsCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Option(names = "--json", description = "The listing as the server answers it")
  boolean json;

  @Override
  public Integer call() {
    return cli.run(session -> {
      String answer = session.request(Route.ADMIN_CONNECTIONS.routeName(), "{}");
      if (json) {
        cli.print(answer);
        return;
      }
      Table table = new Table("ID", "CLIENT", "ADDRESS", "TRANSPORT", "PRINCIPAL", "SINCE", "INSTANCES",
          "SUBSCRIPTIONS");
      for (ConnectionList.Connection connection : JsonCodec.json().decode(answer, ConnectionList.class)
          .connections()) {
        table.row(String.valueOf(connection.id()), connection.client(), connection.remote(), connection.transport(),
            connection.principal() == null ? "-" : connection.principal(),
            Instant.ofEpochMilli(connection.openedAt()).toString(), String.valueOf(connection.instances()),
            String.valueOf(connection.subscriptions()));
      }
      table.print(cli.out);
    });
  }
}
