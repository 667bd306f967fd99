package io.reactiveregistry.loadtest;

import io.reactiveregistry.client.ClientTls;
import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.engine.Runner;
import io.reactiveregistry.loadtest.engine.Target;
import io.reactiveregistry.loadtest.report.CompareCommand;
import io.reactiveregistry.loadtest.report.ConsoleReport;
import io.reactiveregistry.loadtest.report.HistogramLogs;
import io.reactiveregistry.loadtest.report.HtmlReport;
import io.reactiveregistry.loadtest.report.StatsFile;
import io.reactiveregistry.loadtest.simulations.BuiltIn;
import io.reactiveregistry.loadtest.simulations.Params;
import io.reactiveregistry.loadtest.simulations.SimulationParameters;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code java -jar load-tests/target/load-tests.jar RegistrationStorm --target tcp://127.0.0.1:7070 --users 50}.
 * Exit code 0 when every assertion passed, 1 when one failed.
 */
@Command(name = "load-tests", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Runs a load simulation against a registry server and writes a console summary and an HTML report.")
public final class LoadTestMain implements Callable<Integer> {

  @Parameters(index = "0", description = "Simulation: ${COMPLETION-CANDIDATES}", completionCandidates = Names.class)
  String simulation;

  @Option(names = "--target", defaultValue = "tcp://127.0.0.1:7070", description = "Server, or a cluster's members "
      + "separated by commas (virtual users are spread over them in turn). Default: ${DEFAULT-VALUE}")
  String target;

  @Option(names = "--token", defaultValue = "${env:REGISTRY_TOKEN}",
      description = "Bearer token each virtual user presents in its SETUP, for a server with tokens (default: the "
          + "REGISTRY_TOKEN variable)")
  String token;

  @Option(names = "--ca-file", description = "With a tls:// target: PEM CA certificate(s) that signed the server's "
      + "certificate (default: the JVM's trust store)")
  Path caFile;

  @Option(names = "--cert-file", description = "With a tls:// target to a server requiring client certificates "
      + "(mutual TLS): the PEM certificate each connection presents, with --key-file")
  Path certFile;

  @Option(names = "--key-file", description = "The PKCS#8 PEM key of --cert-file")
  Path keyFile;

  @Option(names = "--reports-dir", defaultValue = "load-tests/target/reports",
      description = "Where HTML reports go. Default: ${DEFAULT-VALUE}")
  Path reportsDir;

  @Option(names = "--server-pid", description = "PID of a local server process, to report its CPU time")
  Long serverPid;

  @Option(names = "--metrics-url", description = "The server's Prometheus endpoint, read for its CPU time and heap "
      + "when no --server-pid is given. Default: port 7080 of the target's host")
  java.net.URI metricsUrl;

  @CommandLine.Unmatched
  List<String> parameters;

  static final class Names implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return BuiltIn.names().iterator();
    }
  }

  @Option(names = "--progress-seconds", defaultValue = "5",
      description = "A progress line this often while the run goes on. Default: ${DEFAULT-VALUE}")
  int progressSeconds;

  private final PrintStream out;

  public LoadTestMain() {
    this(System.out);
  }

  LoadTestMain(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) {
    System.exit(execute(args, System.out, System.err));
  }

  /**
   * {@code compare <baseline> <candidate>}, or a simulation. Exit codes: 0 passed, 1 an
   * assertion failed (or compare found a regression), 2 bad usage (an unknown simulation or
   * parameter, a parameter that is not a number).
   */
  static int execute(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0 && args[0].equals("compare")) {
      return new CommandLine(new CompareCommand(out)).execute(java.util.Arrays.copyOfRange(args, 1, args.length));
    }
    if (args.length >= 2 && !args[0].startsWith("-") && (List.of(args).contains("--help") || List.of(args).contains("-h"))) {
      try {
        SimulationParameters.usage(args[0], out);
        return 0;
      } catch (IllegalArgumentException e) {
        err.println(e.getMessage());
        return 2;
      }
    }
    CommandLine command = new CommandLine(new LoadTestMain(out)).setUsageHelpWidth(180)
        .setOut(new java.io.PrintWriter(out, true)).setErr(new java.io.PrintWriter(err, true));
    command.getCommandSpec().usageMessage().footer(footer());
    return command.setUnmatchedOptionsArePositionalParams(false)
        .setExecutionExceptionHandler((e, line, parsed) -> {
          if (e instanceof IllegalArgumentException) {
            err.println(e.getMessage());
            return 2;
          }
          throw e;
        })
        .execute(args);
  }

  /** The simulations and their parameters, from their own declarations. */
  private static String[] footer() {
    List<String> lines = new ArrayList<>(List.of("",
        "Simulations and their parameters (defaults in brackets; <Simulation> --help for one):"));
    SimulationParameters.summary().lines().forEach(line -> lines.add(line.replace("%", "%%")));
    lines.addAll(List.of(
        "Most also take --p99-ms N, --min-throughput N and --max-server-cpu-us N (needs --server-pid): assertions",
        "on the simulation's main request; a failed assertion exits with 1. A user's simulation runs by its class",
        "name. compare <baseline>/stats.json <candidate>/stats.json judges a run against an earlier one."));
    return lines.toArray(String[]::new);
  }

  @Override
  public Integer call() {
    // Declared by the simulation, parsed by picocli: a misspelt parameter or a bad value is refused here.
    Params params;
    try {
      params = new Params(SimulationParameters.parse(simulation, parameters == null ? List.of() : parameters));
    } catch (CommandLine.ParameterException e) {
      List<String> suggestions = e instanceof CommandLine.UnmatchedArgumentException unmatched
          ? unmatched.getSuggestions() : List.of();
      throw new IllegalArgumentException(e.getMessage() + (suggestions.isEmpty() ? "" : "; did you mean "
          + String.join(" or ", suggestions) + "?") + " (" + simulation + " --help lists its parameters)");
    }
    var sim = BuiltIn.build(simulation, params);
    Target server = Target.parse(target).withToken(token).withTls(new ClientTls(caFile, certFile, keyFile));
    java.net.URI metrics = metricsUrl != null ? metricsUrl
        : java.net.URI.create("http://" + server.host() + ":7080/metrics");
    RunResult result = Runner.run(sim, server, params.used(), serverPid, metrics,
        java.time.Duration.ofSeconds(progressSeconds), out);
    ConsoleReport.print(result, out);
    Path report = HtmlReport.write(result, reportsDir);
    Path stats = StatsFile.of(result).write(report.getParent());
    HistogramLogs.write(result.metrics(), result.startedAt().toEpochMilli(), report.getParent());
    out.println("report: " + report.toAbsolutePath());
    out.println("stats:  " + stats.toAbsolutePath());
    return result.passed() ? 0 : 1;
  }
}
