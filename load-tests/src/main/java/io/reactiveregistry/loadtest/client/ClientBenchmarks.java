package io.reactiveregistry.loadtest.client;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.client.ServiceView;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReferenceArray;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * {@code java -cp load-tests/target/load-tests.jar io.reactiveregistry.loadtest.client.ClientBenchmarks idle-client}
 * and {@code ... reconnect-storm}: both start an embedded server on a loopback port.
 */
@Command(name = "client-benchmarks", mixinStandardHelpOptions = true,
    description = "idle-client: heap and idle CPU of one client holding many registrations and watches. "
        + "reconnect-storm: many clients through a server restart, until all are back and all views correct.")
public final class ClientBenchmarks implements Callable<Integer> {
  @Parameters(index = "0", description = "idle-client or reconnect-storm")
  String benchmark;

  @Option(names = "--count", defaultValue = "1000", description = "Registrations and watches (idle-client), or "
      + "clients (reconnect-storm). Default: ${DEFAULT-VALUE}")
  int count;

  @Option(names = "--idle-seconds", defaultValue = "20", description = "Idle time measured. Default: ${DEFAULT-VALUE}")
  int idleSeconds;

  @Option(names = "--port", defaultValue = "7090", description = "Loopback port of the embedded server")
  int port;

  @Option(names = "--target", description = "idle-client only: a server in another process (tcp://127.0.0.1:7070), "
      + "so that the heap and CPU measured are the client's alone")
  String target;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ClientBenchmarks()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    return switch (benchmark) {
      case "idle-client" -> idleClient();
      case "reconnect-storm" -> reconnectStorm();
      default -> throw new CommandLine.ParameterException(new CommandLine(this), "unknown benchmark " + benchmark);
    };
  }

  private RegistryServer server() {
    return RegistryServer.start(ServerConfig.ephemeralLoopback().withTcpPort(port)).block(Duration.ofSeconds(10));
  }

  /** One client, {@code count} registrations (one per service) and {@code count} watches (one per service). */
  private int idleClient() throws Exception {
    RegistryServer server = target == null ? server() : null;
    String address = target == null ? "tcp://127.0.0.1:" + port : target;
    long heapBefore = liveHeap();
    RegistryClient client = RegistryClient.builder().servers(address).build();
    List<Disposable> watches = new ArrayList<>();
    Flux.range(0, count)
        .flatMap(i -> client.register(ServiceName.of("svc-" + i), InstanceBody.of("127.0.0.1", 10_000 + i, null, 1.0,
            Map.of())), 64)
        .blockLast(Duration.ofMinutes(2));
    for (int i = 0; i < count; i++) {
      watches.add(client.watch(ServiceName.of("svc-" + i)).subscribe());
    }
    Thread.sleep(5_000);
    long heapHolding = liveHeap();
    long cpuBefore = processCpuNanos();
    Thread.sleep(idleSeconds * 1_000L);
    long cpuIdle = processCpuNanos() - cpuBefore;
    System.out.printf(Locale.ROOT, "idle-client: %d registrations and %d watches%n", count, count);
    String who = server == null ? "the client alone" : "client and embedded server";
    System.out.printf(Locale.ROOT, "  live heap (%s): %.1f MB before the client, %.1f MB holding (+%.1f MB)%n", who,
        heapBefore / 1e6, heapHolding / 1e6, (heapHolding - heapBefore) / 1e6);
    System.out.printf(Locale.ROOT, "  CPU while idle (%s; heartbeats every 5 s): %.2f s in %d s = %.2f %% of one core%n",
        who, cpuIdle / 1e9, idleSeconds, 100.0 * cpuIdle / (idleSeconds * 1e9));
    watches.forEach(Disposable::dispose);
    client.closeAndWait();
    if (server != null) {
      server.disposeNow(Duration.ofSeconds(5));
    }
    return 0;
  }

  /** {@code count} clients each register one instance and watch the fleet; the server restarts; how long until all is back? */
  private int reconnectStorm() throws Exception {
    RegistryServer server = server();
    ServiceName fleet = ServiceName.of("fleet");
    List<RegistryClient> clients = new ArrayList<>();
    AtomicReferenceArray<ServiceView> views = new AtomicReferenceArray<>(count);
    List<Disposable> watches = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      RegistryClient client = RegistryClient.builder().servers("tcp://127.0.0.1:" + port).clientName("fleet-" + i)
          .reconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(2)).build();
      clients.add(client);
    }
    Flux.range(0, count)
        .flatMap(i -> clients.get(i).register(fleet, InstanceBody.of(ip(i), 8080, null, 1.0, Map.of())), 64)
        .blockLast(Duration.ofMinutes(2));
    for (int i = 0; i < count; i++) {
      int index = i;
      watches.add(clients.get(i).watch(fleet).subscribe(view -> views.set(index, view)));
    }
    waitUntil(() -> allCorrect(views), Duration.ofMinutes(2));
    System.out.printf(Locale.ROOT, "reconnect-storm: %d clients registered and watching; restarting the server%n", count);

    server.disposeNow(Duration.ofSeconds(10));
    long down = System.nanoTime();
    RegistryServer restarted = server();
    long up = System.nanoTime();
    waitUntil(() -> restarted.runtime().read(r -> r.view(
        new io.reactiveregistry.server.core.ServiceKey("public", "DEFAULT_GROUP", "fleet"),
        io.reactiveregistry.server.core.ViewFilter.ALL).instances().size()) == count, Duration.ofMinutes(2));
    long registered = System.nanoTime();
    waitUntil(() -> allCorrect(views), Duration.ofMinutes(2));
    long settled = System.nanoTime();
    System.out.printf(Locale.ROOT, "  server down for %.0f ms (stop to listening again)%n", (up - down) / 1e6);
    System.out.printf(Locale.ROOT, "  all %d registrations back %.2f s after the restart%n", count, (registered - up) / 1e9);
    System.out.printf(Locale.ROOT, "  all %d views correct (%d instances, not stale) %.2f s after the restart%n", count,
        count, (settled - up) / 1e9);
    watches.forEach(Disposable::dispose);
    Flux.fromIterable(clients).flatMap(RegistryClient::close).blockLast(Duration.ofMinutes(1));
    restarted.disposeNow(Duration.ofSeconds(10));
    return 0;
  }

  private boolean allCorrect(AtomicReferenceArray<ServiceView> views) {
    for (int i = 0; i < views.length(); i++) {
      ServiceView view = views.get(i);
      if (view == null || view.stale() || view.instances().size() != count) {
        return false;
      }
    }
    return true;
  }

  private static String ip(int i) {
    return "127.0." + (i / 250) + "." + (i % 250 + 1);
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not reached within " + limit);
      }
      Thread.sleep(20);
    }
  }

  private static long liveHeap() throws InterruptedException {
    System.gc();
    Thread.sleep(500);
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
