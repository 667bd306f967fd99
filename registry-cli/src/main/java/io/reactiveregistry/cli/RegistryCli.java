package io.reactiveregistry.cli;

import io.reactiveregistry.client.ClientTls;
import io.reactiveregistry.client.ClientTransports;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.transport.ClientTransport;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Flux;

/**
 * {@code registry-cli services}, {@code registry-cli watch orders}, ... and the raw mode:
 * {@code registry-cli --route service.query --data '{"service":"orders"}'}.
 */
@Command(name = "registry-cli", mixinStandardHelpOptions = true, sortOptions = false,
    versionProvider = CliVersion.class,
    description = {"A command-line client of the registry: a task per subcommand, or any route with --route "
        + "and --data (prints each JSON answer on its own line)."},
    subcommands = {NamespacesCommand.class, ServicesCommand.class, InstancesCommand.class, RegisterCommand.class, DeregisterCommand.class,
        WatchCommand.class, WatchCatalogCommand.class, TraceCommand.class, InfoCommand.class, MembersCommand.class, ConnectionsCommand.class,
        BackupCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:done",
        "1:the registry refused the request (its error, as JSON, on stderr)",
        "2:bad usage (an unknown option, a missing argument, a target with an unknown scheme)",
        "3:no connection to the target"})
public final class RegistryCli implements Callable<Integer> {
  static final int REFUSED = 1;
  static final int USAGE = 2;
  static final int UNREACHABLE = 3;

  @Option(names = {"-t", "--target"}, scope = ScopeType.INHERIT,
      defaultValue = "${env:REGISTRY_ADDR:-tcp://127.0.0.1:7070}",
      description = "Server address: tcp://host:port, tls://host:port for a server with TLS, or its WebSocket "
          + "endpoint, ws://host:port/rsocket (wss:// with TLS). Default: the REGISTRY_ADDR variable, else "
          + "tcp://127.0.0.1:7070")
  URI target;

  @Option(names = "--ca-file", scope = ScopeType.INHERIT, description = "With tls:// or wss://: PEM CA "
      + "certificate(s) that signed the server's certificate (default: the JVM's trust store)")
  Path caFile;

  @Option(names = "--cert-file", scope = ScopeType.INHERIT, description = "With tls:// or wss://: PEM certificate "
      + "to present, for a server that asks for one (mutual TLS)")
  Path certFile;

  @Option(names = "--key-file", scope = ScopeType.INHERIT, description = "With tls:// or wss://: PKCS#8 PEM key of "
      + "--cert-file")
  Path keyFile;

  @Option(names = "--token", scope = ScopeType.INHERIT, defaultValue = "${env:REGISTRY_TOKEN}",
      description = "Bearer token presented in the SETUP, for a server with tokens (default: the REGISTRY_TOKEN "
          + "variable, which keeps it out of shell history)")
  String token;

  @Option(names = "--client", scope = ScopeType.INHERIT, defaultValue = "registry-cli",
      description = "Client label sent in SETUP data")
  String client;

  @Option(names = {"-r", "--route"}, description = "Raw mode: the route, e.g. instance.register")
  String route;

  @Option(names = {"-d", "--data"}, defaultValue = "{}", description = "Raw mode: the JSON body. "
      + "Default: ${DEFAULT-VALUE}")
  String data;

  @ArgGroup(exclusive = true)
  Interaction interaction = new Interaction();

  static final class Interaction {
    @Option(names = "--request", description = "Raw mode: request-response (the default)")
    boolean request;

    @Option(names = "--fnf", description = "Raw mode: fire-and-forget")
    boolean fireAndForget;

    @Option(names = "--stream", description = "Raw mode: request-stream: prints events until cancelled")
    boolean stream;
  }

  @Option(names = "--take", description = "Raw mode, with --stream: stop after this many events")
  Long take;

  @Option(names = "--hold", description = "Raw mode: keep the connection open after the answer until Ctrl-C, so "
      + "that ephemeral instances it registered stay registered")
  boolean hold;

  @Spec
  CommandSpec spec;

  final PrintStream out;
  final PrintStream err;

  public RegistryCli() {
    this(System.out, System.err);
  }

  RegistryCli(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(commandLine(System.out, System.err).execute(args));
  }

  /** The command line, printing answers and help to {@code out}, errors and usage mistakes to {@code err}. */
  static CommandLine commandLine(PrintStream out, PrintStream err) {
    return new CommandLine(new RegistryCli(out, err))
        .setOut(new PrintWriter(out, true, StandardCharsets.UTF_8))
        .setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
  }

  @Override
  public Integer call() {
    if (route == null) {
      err.println("give a subcommand, or a route with --route (raw mode)");
      spec.commandLine().usage(err);
      return USAGE;
    }
    return run(session -> {
      if (interaction.fireAndForget) {
        session.fire(route, data);
      } else if (interaction.stream) {
        follow(session, route, data, take, event -> event);
      } else {
        print(session.request(route, data));
      }
      if (hold) {
        hold(session);
      }
    });
  }

  /** What a subcommand does on its connection. */
  interface Task {
    void run(Session session) throws Exception;
  }

  /**
   * Connects to the target and runs {@code task}; a refusal is printed to stderr with exit code
   * 1, no connection is exit code 3.
   */
  int run(Task task) {
    ClientTransport transport;
    try {
      transport = ClientTransports.of(target, new ClientTls(caFile, certFile, keyFile));
    } catch (IllegalArgumentException e) {
      err.println("--target: " + e.getMessage());
      return USAGE;
    }
    try (Session session = Session.open(transport, client, token)) {
      task.run(session);
      return 0;
    } catch (ApplicationErrorException e) {
      err.println(e.getMessage());
      return REFUSED;
    } catch (Session.Unreachable e) {
      err.println("no connection to " + target + ": " + e.getMessage());
      return UNREACHABLE;
    } catch (Exception e) {
      err.println(e);
      return UNREACHABLE;
    }
  }

  /** Prints a stream's events, each as {@code line} makes it, until it ends or {@code take} were printed. */
  void follow(Session session, String route, String body, Long take, Function<String, String> line) {
    Flux<String> events = session.stream(route, body);
    (take == null ? events : events.take(take)).map(line).doOnNext(this::print).blockLast();
  }

  void hold(Session session) {
    err.println("holding the connection open; Ctrl-C closes it");
    session.onClose().block();
  }

  void print(String line) {
    out.println(line);
    out.flush();
  }
}
