package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.CatalogQuery;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code registry-cli watch-catalog}: a namespace's services, then one line per service that
 * appears, changes or goes, until Ctrl-C.
 */
@Command(name = "watch-catalog", mixinStandardHelpOptions = true,
    description = "Watches a namespace's services: a SNAPSHOT of them, then one line when a service appears or its "
        + "summary changes (UPSERT) or it goes (REMOVE), each with its revision, until Ctrl-C.")
final class WatchCatalogCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Option(names = {"-n", "--namespace"}, defaultValue = Protocol.DEFAULT_NAMESPACE,
      description = "Namespace. Default: ${DEFAULT-VALUE}")
  String namespace;

  @Option(names = {"-g", "--group"}, description = "Only this group (default: every group)")
  String group;

  @Option(names = "--prefix", description = "Only services whose name starts with this")
  String prefix;

  @Mixin
  StreamOptions stream;

  @Override
  public Integer call() {
    String body = JsonCodec.json().encodeToString(new CatalogQuery(namespace, group, prefix));
    return cli.run(session -> cli.follow(session, Route.CATALOG_SUBSCRIBE.routeName(), body, stream.take,
        event -> stream.json ? event : Lines.catalog(JsonCodec.json().decode(event, CatalogEvent.class))));
  }
}
