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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.Disposable;

/**
 * {@code java -cp load-tests/target/load-tests.jar io.reactiveregistry.loadtest.server.PushBenchmarks resume-cost}:
 * what the server spends, in CPU on the thread that does it, to answer a subscriber that
 * resumes after a short disconnect, against one that takes a full snapshot of the same view
 * (encoded to the bytes that would be written). The registry runs in process; the network's
 * share (one small frame against one of about 200 KB) is left out, which flatters the snapshot.
 *
 * <p>{@code selector-cost}: what a selector adds to each push of a change to a large service, in
 * CPU on the thread that makes the change and pushes it to every subscriber (in process, the
 * events encoded to the bytes that would be written; the network's share is the same with or
 * without a selector, and left out, which magnifies the selector's share).
 */
@CommandLine.Command(name = "push-benchmarks", mixinStandardHelpOptions = true,
    description = "resume-cost: server CPU of a resumed subscription against a full snapshot of a large view; "
        + "selector-cost: server CPU per push of a view with a selector against the same view without.")
public final class PushBenchmarks implements Callable<Integer> {
  @Parameters(index = "0", description = "resume-cost or selector-cost")
  String benchmark;

  @Option(names = "--instances", defaultValue = "1000", description = "Instances of the service. Default: ${DEFAULT-VALUE}")
  int instances;

  @Option(names = "--missed", defaultValue = "5",
      description = "Changes made while the subscriber was away. Default: ${DEFAULT-VALUE}")
  int missed;

  @Option(names = "--iterations", defaultValue = "20000", description = "Measured subscriptions of each kind, after as "
      + "many for warm-up. Default: ${DEFAULT-VALUE}")
  int iterations;

  @Option(names = "--subscribers", defaultValue = "100",
      description = "selector-cost: subscribers of the view. Default: ${DEFAULT-VALUE}")
  int subscribers;

  @Option(names = "--changes", defaultValue = "20000",
      description = "selector-cost: measured changes per view, after as many for warm-up. Default: ${DEFAULT-VALUE}")
  int changes;

  public static void main(String[] args) {
    System.exit(new CommandLine(new PushBenchmarks()).execute(args));
  }

  @Override
  public Integer call() {
    if ("selector-cost".equals(benchmark)) {
      return selectorCost();
    }
    if (!"resume-cost".equals(benchmark)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "unknown benchmark " + benchmark);
    }
    Owner owner = new Owner(1, "bench");
    ServiceKey service = ServiceKey.of(null, null, "resumable");
    RegistryRuntime runtime = new RegistryRuntime(new Registry(InstantSource.system(), RegistryConfig.DEFAULTS),
        new PushHub(1_000_000, (changedAt, trace) -> { },
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

  /**
   * A service of {@code instances} (half v0, half v1, in three zones) with a protection threshold,
   * so that a healthy-only view computes protection over the service on every change; one
   * instance selected by every view changes {@code changes} times; each view in turn has
   * {@code subscribers} subscribers. Views without and with a selector alternate, twice.
   */
  private int selectorCost() {
    Owner owner = new Owner(1, "bench");
    ServiceKey service = ServiceKey.of(null, null, "selected");
    RegistryRuntime runtime = new RegistryRuntime(new Registry(InstantSource.system(), RegistryConfig.DEFAULTS),
        new PushHub(1_000_000, (changedAt, trace) -> { },
            new ResumeHistory(ResumeHistory.Limits.DEFAULTS, InstantSource.system(), "bench")));
    runtime.execute(new Command.CreateService(owner, service, true, 0.1, Map.of()));
    for (int i = 0; i < instances; i++) {
      runtime.execute(new Command.Register(owner, service, true, instance(i, "v" + i % 2)));
    }
    String selector = "zone in (zone-0,zone-1),version!=v9";
    Map<String, ViewFilter> views = new LinkedHashMap<>();
    views.put("every instance", ViewFilter.ALL);
    views.put("every instance, selector", ViewFilter.of(null, false, selector));
    views.put("healthy-only (protection)", ViewFilter.of(null, true));
    views.put("healthy-only (protection), selector", ViewFilter.of(null, true, selector));
    System.out.printf(Locale.ROOT, "selector-cost: a service of %d instances, %d subscribers per view, %d changes; "
        + "selector '%s'%n", instances, subscribers, changes, selector);
    Map<String, Double> perPush = new LinkedHashMap<>();
    for (int round = 0; round < 3; round++) {
      for (Map.Entry<String, ViewFilter> view : views.entrySet()) {
        double micros = pushCost(runtime, owner, service, view.getValue());
        if (round > 0) { // round 0 warms every path up
          perPush.merge(view.getKey(), micros / 2, Double::sum);
        }
      }
    }
    perPush.forEach((name, micros) -> System.out.printf(Locale.ROOT, "  %-38s %.2f µs of CPU per push "
        + "(%.1f µs per change)%n", name, micros, micros * subscribers));
    return 0;
  }

  /** Changes of instance 0 so far: its weight goes 2, 1, 2, ... from the 1 it was registered with. */
  private long flips;

  /** CPU of this thread per push: {@code changes} changes, each pushed to every subscriber of {@code filter}. */
  private double pushCost(RegistryRuntime runtime, Owner owner, ServiceKey service, ViewFilter filter) {
    AtomicLong received = new AtomicLong();
    List<Disposable> open = new ArrayList<>();
    for (int i = 0; i < subscribers; i++) {
      open.add(runtime.subscribe(service, filter).subscribe(frame -> received.addAndGet(frame.length > 0 ? 1 : 0)));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long before = received.get();
    long start = threads.getCurrentThreadCpuTime();
    for (int i = 0; i < changes; i++) {
      // Instance 0 (zone-0, v0): in every view; its weight alternates, so each change is an UPSERT.
      runtime.execute(new Command.Register(owner, service, true, InstanceSpec.of("instance", "127.0.0.1", 8080,
          null, (double) (2 - flips++ % 2), null, Map.of("version", "v0", "zone", "zone-0"))));
    }
    long cpu = threads.getCurrentThreadCpuTime() - start;
    long pushed = received.get() - before;
    open.forEach(Disposable::dispose);
    if (pushed != (long) changes * subscribers) {
      throw new IllegalStateException("pushed " + pushed + ", expected " + (long) changes * subscribers);
    }
    return cpu / 1_000.0 / pushed;
  }
}
