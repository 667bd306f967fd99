package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import io.reactiveregistry.protocol.message.TraceHistoryQuery;
import io.reactiveregistry.protocol.message.TraceQuery;
import io.reactiveregistry.protocol.rules.RuleViolation;
import io.reactiveregistry.protocol.rules.TimeBounds;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import reactor.core.publisher.Flux;

/**
 * {@code registry-cli trace --service orders}: the audit trail, live; with {@code --since} (or
 * {@code --until}), what the server kept of it, then, with {@code --follow}, live from there.
 */
@Command(name = "trace", mixinStandardHelpOptions = true,
    description = "Follows the audit trail: every change, with its cause, connection and principal, until Ctrl-C; "
        + "with --since, prints the changes the server kept instead (and with --follow, follows on from them). "
        + "Needs the admin permission on a server with tokens.")
final class TraceCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Option(names = {"-n", "--namespace"}, description = "Only this namespace")
  String namespace;

  @Option(names = {"-g", "--group"}, description = "Only this group")
  String group;

  @Option(names = {"-s", "--service"}, description = "Only this service")
  String service;

  @Option(names = "--since", description = "The kept history from this time: an age (90s, 15m, 1h, 2d), an "
      + "ISO-8601 instant or epoch milliseconds")
  String since;

  @Option(names = "--until", description = "The kept history before this time (written as --since is)")
  String until;

  @Option(names = {"-i", "--instance"}, description = "History only: this instance id (ip#port#cluster)")
  String instance;

  @Option(names = "--cause", description = "History only: this cause (REGISTER, DEREGISTER, CONNECTION_CLOSED, ...)")
  String cause;

  @Option(names = "--principal", description = "History only: changes made for this principal")
  String principal;

  @Option(names = "--limit", description = "History only: at most this many, the newest (server default 1000)")
  Integer limit;

  @Option(names = {"-f", "--follow"}, description = "After the history, follow the trail live")
  boolean follow;

  @Mixin
  StreamOptions stream;

  @Override
  public Integer call() {
    boolean history = since != null || until != null || instance != null || cause != null || principal != null
        || limit != null;
    if (!history) {
      return cli.run(session -> cli.follow(session, Route.ADMIN_TRACE.routeName(), live(), stream.take,
          this::line));
    }
    TraceHistoryQuery query;
    try {
      long now = System.currentTimeMillis();
      query = new TraceHistoryQuery(namespace, group, service, instance, cause, principal,
          TimeBounds.parse("--since", since, now), TimeBounds.parse("--until", until, now), limit);
    } catch (RuleViolation e) {
      cli.err.println(e.getMessage());
      return RegistryCli.USAGE;
    }
    return cli.run(session -> {
      // Asked before the history, on the same connection: the server has the live stream open by
      // the time it answers the query, so nothing falls between the two (duplicates are skipped).
      Flux<String> live = follow ? session.stream(Route.ADMIN_TRACE.routeName(), live()).replay().autoConnect(0)
          : Flux.empty();
      TraceHistory kept = JsonCodec.json().decode(
          session.request(Route.ADMIN_TRACE_QUERY.routeName(), JsonCodec.json().encodeToString(query)),
          TraceHistory.class);
      long last = 0;
      for (TraceEvent event : kept.events()) {
        cli.print(stream.json ? JsonCodec.json().encodeToString(event) : Lines.trace(event));
        last = event.revision() == null ? last : event.revision();
      }
      if (kept.truncated()) {
        cli.err.println("(only the newest " + kept.events().size() + " shown: more matched; narrow the query or "
            + "raise --limit)");
      }
      if (follow) {
        long shown = last;
        Flux<String> after = live.filter(json -> {
          Long revision = JsonCodec.json().decode(json, TraceEvent.class).revision();
          return revision == null || revision > shown;
        });
        (stream.take == null ? after : after.take(stream.take)).map(this::line).doOnNext(cli::print).blockLast();
      }
    });
  }

  private String live() {
    return JsonCodec.json().encodeToString(new TraceQuery(namespace, group, service));
  }

  private String line(String event) {
    return stream.json ? event : Lines.trace(JsonCodec.json().decode(event, TraceEvent.class));
  }
}
