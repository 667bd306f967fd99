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
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    description = "Runs a load simulation against a registry server and writes a console summary and an HTML report.",
    footer = {"", "Simulations and their parameters (defaults in brackets):",
        "  RegistrationStorm     --users [50] --instances [1000] per user --concurrency [64] --hold-ms [0]",
        "                        --persistent 1: persistent instances (kept, and health-checked by the server)",
        "  SteadyHeartbeats      --users [50] --instances [100] --heartbeats [20000] per user",
        "  SubscriptionFanOut    --subscribers [1000] --updates [100] --interval-ms [100] --warmup-ms [3000]",
        "                        --publisher-member K: the publisher on the K-th --target (from 0), subscribers on the others",
        "  ChurnWithSubscribers  --subscribers [100] --rate [20] users/s --duration-ms [20000] --instances [5]"
            + " --lifetime-ms [1000]",
        "  ReconnectStorm        --users [1000] --instances [1] --settle-ms [2000]",
        "  QueryLoad             --users [20] --rate [1000] per user per s --duration-ms [10000]",
        "  QueryStorm            --users [20] --queries [20000] per user --concurrency [32]",
        "  IdleConnections       --users [1000] --hold-ms [10000]",
        "  ResumeCost            --instances [1000] --subscribers [50] --rounds [20] --gap-ms [1000] --resume [1]",
        "                        --resume 0: subscribe afresh each time (a full snapshot), to compare",
        "  LoneHeartbeats        --users [500] --instances [20] per user --interval-ms [5000] --duration-ms [30000]",
        "                        each heartbeat alone on its connection (RegistrationStorm --concurrency 1: lone registrations)",
        "Any of them: --p99-ms N, --min-throughput N and --max-server-cpu-us N (needs --server-pid) add",
        "assertions on the simulation's main request; a failed assertion exits with 1."})
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
    return new CommandLine(new LoadTestMain(out)).setUnmatchedOptionsArePositionalParams(false)
        .setExecutionExceptionHandler((e, line, parsed) -> {
          if (e instanceof IllegalArgumentException) {
            err.println(e.getMessage());
            return 2;
          }
          throw e;
        })
        .execute(args);
  }

  @Override
  public Integer call() {
    Params params = new Params(parse(parameters));
    var sim = BuiltIn.build(simulation, params);
    if (!params.unknown().isEmpty()) {
      throw new IllegalArgumentException(simulation + " takes no " + params.unknown().stream().map(name -> "--" + name)
          .toList() + "; it takes " + params.used().keySet().stream().sorted().map(name -> "--" + name).toList()
          + " (and --p99-ms, --min-throughput, --max-server-cpu-us)");
    }
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

  /** {@code --name value} or {@code --name=value} pairs. */
  static Map<String, String> parse(List<String> args) {
    Map<String, String> out = new LinkedHashMap<>();
    if (args == null) {
      return out;
    }
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("expected --name value, got " + arg);
      }
      int eq = arg.indexOf('=');
      if (eq > 0) {
        out.put(arg.substring(2, eq), arg.substring(eq + 1));
      } else if (i + 1 < args.size()) {
        out.put(arg.substring(2), args.get(++i));
      } else {
        throw new IllegalArgumentException("missing a value for " + arg);
      }
    }
    return out;
  }
}
