package io.reactiveregistry.loadtest.server;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.InstanceSpec;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.RegistryConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.push.ResumeHistory;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code java -cp load-tests/target/load-tests.jar io.reactiveregistry.loadtest.server.PushBenchmarks resume-cost}:
 * what the server spends, in CPU on the thread that does it, to answer a subscriber that
 * resumes after a short disconnect, against one that takes a full snapshot of the same view
 * (encoded to the bytes that would be written). The registry runs in process; the network's
 * share (one small frame against one of about 200 KB) is left out, which flatters the snapshot.
 */
@CommandLine.Command(name = "push-benchmarks", mixinStandardHelpOptions = true,
    description = "resume-cost: server CPU of a resumed subscription against a full snapshot of a large view.")
public final class PushBenchmarks implements Callable<Integer> {
  @Parameters(index = "0", description = "resume-cost")
  String benchmark;

  @Option(names = "--instances", defaultValue = "1000", description = "Instances of the service. Default: ${DEFAULT-VALUE}")
  int instances;

  @Option(names = "--missed", defaultValue = "5",
      description = "Changes made while the subscriber was away. Default: ${DEFAULT-VALUE}")
  int missed;

  @Option(names = "--iterations", defaultValue = "20000", description = "Measured subscriptions of each kind, after as "
      + "many for warm-up. Default: ${DEFAULT-VALUE}")
  int iterations;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PushBenchmarks()).execute(args));
  }

  @Override
  public Integer call() {
    if (!"resume-cost".equals(benchmark)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "unknown benchmark " + benchmark);
    }
    Owner owner = new Owner(1, "bench");
    ServiceKey service = ServiceKey.of(null, null, "resumable");
    RegistryRuntime runtime = new RegistryRuntime(new Registry(InstantSource.system(), RegistryConfig.DEFAULTS),
        new PushHub(1_000_000, changedAt -> { },
            new ResumeHistory(ResumeHistory.Limits.DEFAULTS, InstantSource.system(), "bench")));
    for (int i = 0; i < instances; i++) {
      runtime.execute(new Command.Register(owner, service, true, instance(i, "v0")));
    }
    // A subscriber that stays keeps the service's history; the measured ones come and go.
    runtime.subscribe(service, ViewFilter.ALL).subscribe();
    byte[] first = runtime.subscribe(service, ViewFilter.ALL).blockFirst();
    ServiceEvent snapshot = JsonCodec.json().decode(first, ServiceEvent.class);
    // Changes the resuming subscriber missed.
    for (int i = 0; i < missed; i++) {
      runtime.execute(new Command.Register(owner, service, true, instance(i, "v1")));
    }
    PushHub.Resume resume = new PushHub.Resume(snapshot.revision(), snapshot.node());
    System.out.printf(Locale.ROOT, "resume-cost: a service of %d instances; %d changes missed; snapshot %,d bytes%n",
        instances, missed, first.length);
    measure(runtime, service, null, iterations, true); // warm-up of every path
    measure(runtime, service, resume, iterations, true);
    measure(runtime, service, null, iterations, false);
    double fresh = measure(runtime, service, null, iterations, true);
    double resumed = measure(runtime, service, resume, iterations, true);
    double shared = measure(runtime, service, null, iterations, false);
    System.out.printf(Locale.ROOT, "  full snapshot: %.1f µs of CPU per subscription%n", fresh);
    System.out.printf(Locale.ROOT, "  resumed (RESUMED + %d changes): %.1f µs of CPU per subscription (%.1f %% of a "
        + "snapshot)%n", missed, resumed, 100 * resumed / fresh);
    System.out.printf(Locale.ROOT, "  snapshot shared with others asking at the same revision: %.1f µs%n", shared);
    return 0;
  }

  private int bumps;

  /** Some change elsewhere: the next snapshot is at a new revision, so it cannot be shared. */
  private void changeElsewhere(RegistryRuntime runtime) {
    runtime.execute(new Command.Register(new Owner(2, "other"), ServiceKey.of(null, null, "elsewhere"), true,
        instance(0, "v" + (bumps++ % 2))));
  }

  private InstanceSpec instance(int i, String version) {
    return InstanceSpec.of("instance", "127.0." + (i / 250) + "." + (1 + i % 250), 8080, null, null, null,
        Map.of("version", version, "zone", "zone-" + (i % 3)));
  }

  /**
   * Mean CPU time of this thread per subscription, each taken to the bytes of its last event: the
   * snapshot, or {@code RESUMED} and the {@code missed} changes; with {@code newRevision}, each
   * after a change to another service (counted in), so that no two snapshots are shared.
   */
  private double measure(RegistryRuntime runtime, ServiceKey service, PushHub.Resume resume, int count,
      boolean newRevision) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    int events = resume == null ? 1 : 1 + missed;
    long start = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < count; i++) {
      if (newRevision) {
        changeElsewhere(runtime);
      }
      List<byte[]> received = runtime.subscribe(service, ViewFilter.ALL, resume).take(events).collectList().block();
      if (i == 0 && resume != null && !new String(received.get(0), StandardCharsets.UTF_8).contains("RESUMED")) {
        throw new IllegalStateException("the subscription was not resumed");
      }
    }
    return (threads.getCurrentThreadCpuTime() - start) / 1_000.0 / count;
  }
}
