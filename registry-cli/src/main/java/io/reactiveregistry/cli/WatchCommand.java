package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli watch orders}: the service's snapshot, then one line per change, until Ctrl-C. */
@Command(name = "watch", mixinStandardHelpOptions = true,
    description = "Watches a service: its SNAPSHOT, then one line per change (UPSERT, REMOVE, SERVICE_DELETED), "
        + "each with its revision, until Ctrl-C.")
final class WatchCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Mixin
  ServiceOptions names;

  @Parameters(index = "0", paramLabel = "<service>", description = "The service")
  String service;

  @Mixin
  ViewOptions view;

  @Mixin
  StreamOptions stream;

  @Override
  public Integer call() {
    String body = JsonCodec.json().encodeToString(view.query(names, service));
    return cli.run(session -> cli.follow(session, Route.SERVICE_SUBSCRIBE.routeName(), body, stream.take,
        event -> stream.json ? event : Lines.event(JsonCodec.json().decode(event, ServiceEvent.class))));
  }
}
