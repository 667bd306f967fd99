package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceQuery;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli trace --service orders}: the audit trail, live. */
@Command(name = "trace", mixinStandardHelpOptions = true,
    description = "Follows the audit trail: every change, with its cause, connection and principal, until Ctrl-C "
        + "(needs the admin permission on a server with tokens).")
final class TraceCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Option(names = {"-n", "--namespace"}, description = "Only this namespace")
  String namespace;

  @Option(names = {"-g", "--group"}, description = "Only this group")
  String group;

  @Option(names = {"-s", "--service"}, description = "Only this service")
  String service;

  @Mixin
  StreamOptions stream;

  @Override
  public Integer call() {
    String body = JsonCodec.json().encodeToString(new TraceQuery(namespace, group, service));
    return cli.run(session -> cli.follow(session, Route.ADMIN_TRACE.routeName(), body, stream.take,
        event -> stream.json ? event : Lines.trace(JsonCodec.json().decode(event, TraceEvent.class))));
  }
}
