package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServerInfo;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli info}: the server's version, node, uptime, storage and protection state. */
@Command(name = "info", mixinStandardHelpOptions = true,
    description = "Shows the server: version, protocol, node id, uptime, storage, self-preservation, cluster role.")
final class InfoCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Option(names = "--json", description = "The server's answer as JSON")
  boolean json;

  @Override
  public Integer call() {
    return cli.run(session -> {
      String answer = session.request(Route.SERVER_INFO.routeName(), "{}");
      if (json) {
        cli.print(answer);
        return;
      }
      ServerInfo info = JsonCodec.json().decode(answer, ServerInfo.class);
      cli.print("version           " + info.version() + " (protocol " + info.protocol() + ")");
      cli.print("node              " + info.nodeId());
      cli.print("uptime            " + Duration.ofMillis(info.uptimeMs()).withNanos(0).toString().substring(2)
          .toLowerCase(Locale.ROOT));
      cli.print("storage           " + info.storage());
      cli.print("self-preservation " + (info.selfPreservation() ? "on: expiry paused" : "off"));
      if (info.cluster() != null) {
        cli.print("cluster           " + info.cluster().role() + ", leader " + info.cluster().leader() + ", term "
            + info.cluster().term() + ", " + info.cluster().members().size() + " members");
      }
    });
  }
}
