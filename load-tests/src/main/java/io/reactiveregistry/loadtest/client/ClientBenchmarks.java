package io.reactiveregistry.loadtest.client;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.client.ServiceView;
import io.reactiveregistry.loadtest.engine.ServerCpu;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.core.ViewFilter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
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

  @Option(names = "--server-jar", description = "reconnect-storm only: run the server as a process of its own from "
      + "this jar (reactive-registry-server/target/reactive-registry-server.jar), so that its CPU is measured apart "
      + "from the clients'; default: embedded in this process")
  String serverJar;

  @Option(names = "--server-jvm-args", split = " ", description = "reconnect-storm with --server-jar: more JVM "
      + "options for the server process (say a profiler agent), separated by spaces")
  List<String> serverJvmArgs = new ArrayList<>();

  @Option(names = "--lean", description = "reconnect-storm only: the fleet as lean clients (plain Netty, frames read "
      + "as bytes; registration, coalescing watch, heartbeats, the Java client's reconnect backoff) instead of Java "
      + "clients, so that the generator costs less than the server it measures")
  boolean lean;

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
    StormServer server = serverJar == null ? new EmbeddedServer() : new ServerProcess(serverJar, port, serverJvmArgs);
    server.start();
    ServiceName fleet = ServiceName.of("fleet");
    Fleet clients = lean ? new LeanFleet(fleet) : new FullFleet(fleet);
    List<Disposable> watches = new ArrayList<>();
    // An observer outside the fleet notes when each instance is back after the restart: a client
    // starved by the others would show in the tail.
    ConcurrentHashMap<String, Long> backAt = new ConcurrentHashMap<>();
    AtomicBoolean restarted = new AtomicBoolean();
    RegistryClient observer = RegistryClient.builder().servers("tcp://127.0.0.1:" + port).clientName("observer")
        .reconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(2)).build();
    watches.add(observer.events(fleet, null, false).subscribe(event -> {
      if (!restarted.get()) {
        return;
      }
      long now = System.nanoTime();
      if (event.instances() != null) {
        event.instances().forEach(instance -> backAt.putIfAbsent(instance.instanceId(), now));
      } else if (event.instance() != null) {
        backAt.putIfAbsent(event.instance().instanceId(), now);
      }
    }));
    waitUntil(() -> clients.correctViews() == count, Duration.ofMinutes(2));
    System.out.printf(Locale.ROOT, "reconnect-storm: %d %sclients registered and watching; restarting the server%n",
        count, lean ? "lean " : "");

    server.stop();
    long down = System.nanoTime();
    restarted.set(true);
    server.start();
    long up = System.nanoTime();
    ServerCpu.Reading serverCpuAtStart = server.cpu();
    long processCpuAtStart = processCpuNanos();
    // What the clients see of the fleet: the one with the most instances.
    IntSupplier largestView = clients::largestView;
    Disposable progress = Flux.interval(Duration.ofSeconds(1)).subscribe(tick -> System.out.printf(Locale.ROOT,
        "  %2d s: %d registrations back, %d views correct%n", tick + 1, server.registered(largestView),
        clients.correctViews()));
    waitUntil(() -> server.registered(largestView) == count, Duration.ofMinutes(2));
    long registered = System.nanoTime();
    waitUntil(() -> clients.correctViews() == count, Duration.ofMinutes(2));
    long settled = System.nanoTime();
    progress.dispose();
    ServerCpu.Reading serverCpu = server.cpu().since(serverCpuAtStart);
    long processCpu = processCpuNanos() - processCpuAtStart;
    // The observer reconnects on its own backoff, so it may still be catching up when the fleet's
    // views are correct; its figures are only whole once it has seen every instance come back.
    // (After the CPU readings: those end where the fleet's views became correct.)
    long observerDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (backAt.size() < count && System.nanoTime() < observerDeadline) {
      Thread.sleep(20);
    }
    System.out.printf(Locale.ROOT, "  server down for %.0f ms (stop to listening again)%n", (up - down) / 1e6);
    System.out.printf(Locale.ROOT, "  all %d registrations back %.2f s after the restart%n", count, (registered - up) / 1e9);
    System.out.printf(Locale.ROOT, "  all %d views correct (%d instances, not stale) %.2f s after the restart%n", count,
        count, (settled - up) / 1e9);
    long[] each = backAt.values().stream().mapToLong(at -> at - up).sorted().toArray();
    if (each.length > 0) {
      System.out.printf(Locale.ROOT, "  each instance back (seen by an observer): p50 %.2f s, p99 %.2f s, last %.2f s "
          + "after the restart (%d seen)%n", each[each.length / 2] / 1e9, each[each.length * 99 / 100] / 1e9,
          each[each.length - 1] / 1e9, each.length);
    }
    if (server instanceof ServerProcess) {
      // The JIT's part says how much of the server's CPU is a cold JVM compiling its hot paths.
      System.out.printf(Locale.ROOT, "  CPU from the restart until all views were correct: server %.2f s (its JIT "
          + "compiler threads %.2f s, GC %.2f s), the %d clients %.2f s%n", serverCpu.total(), serverCpu.jit(),
          serverCpu.gc(), count, processCpu / 1e9);
    } else {
      System.out.printf(Locale.ROOT, "  CPU from the restart until all views were correct: %.2f s (server and "
          + "clients in this process; --server-jar separates them)%n", processCpu / 1e9);
    }
    watches.forEach(Disposable::dispose);
    clients.close();
    observer.closeAndWait();
    server.stop();
    return 0;
  }

  /** The server the storm restarts. */
  private interface StormServer {
    void start() throws Exception;

    void stop() throws Exception;

    /** Instances of the fleet registered with it; {@code largestView} where it cannot be asked directly. */
    int registered(IntSupplier largestView);

    /** CPU the server has used, with its JIT's and GC's share (unknown when it shares this process). */
    ServerCpu.Reading cpu();
  }

  /** The server in this process: quick, but its CPU cannot be told from the clients'. */
  private final class EmbeddedServer implements StormServer {
    private RegistryServer server;

    @Override
    public void start() {
      server = server();
    }

    @Override
    public void stop() {
      server.disposeNow(Duration.ofSeconds(10));
    }

    @Override
    public int registered(IntSupplier largestView) {
      return server.runtime().read(r -> r.view(
          new ServiceKey("public", "DEFAULT_GROUP", "fleet"),
          ViewFilter.ALL).instances().size());
    }

    @Override
    public ServerCpu.Reading cpu() {
      return ServerCpu.Reading.UNKNOWN;
    }
  }

  /**
   * The server as a process of its own ({@code java -jar reactive-registry-server.jar}), started
   * cold as after a real restart, so that its CPU is measured apart from the clients'.
   */
  private static final class ServerProcess implements StormServer {
    private final String jar;
    private final int port;
    private final Path dataDir;
    private final List<String> jvmArgs;
    private Process process;

    ServerProcess(String jar, int port, List<String> jvmArgs) throws IOException {
      this.jar = jar;
      this.port = port;
      this.jvmArgs = List.copyOf(jvmArgs);
      this.dataDir = Files.createTempDirectory("reconnect-storm");
    }

    @Override
    public void start() throws Exception {
      List<String> command = new ArrayList<>(List.of("java", "-XX:+ExitOnOutOfMemoryError"));
      command.addAll(jvmArgs);
      command.addAll(List.of("-jar", jar, "--port", String.valueOf(port), "--ws-port", "0", "--http-port", "0",
          "--nacos-port", "-1", "--raft-port", String.valueOf(port + 1), "--data-dir", dataDir.toString()));
      process = new ProcessBuilder(command)
          .redirectErrorStream(true).redirectOutput(dataDir.resolve("server.log").toFile()).start();
      waitUntil(this::listening, Duration.ofMinutes(1));
    }

    private boolean listening() {
      try (Socket socket = new Socket("127.0.0.1", port)) {
        return true;
      } catch (IOException notYet) {
        return false;
      }
    }

    @Override
    public void stop() throws Exception {
      process.destroy(); // SIGTERM: the server's graceful shutdown, as an operator's restart
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }

    @Override
    public int registered(IntSupplier largestView) {
      return largestView.getAsInt();
    }

    @Override
    public ServerCpu.Reading cpu() {
      return ServerCpu.read(process.pid());
    }
  }

  /** The storm's clients: what their views show. */
  private interface Fleet {
    /** The most instances any client's current view shows. */
    int largestView();

    /** Clients whose current view shows the whole fleet. */
    int correctViews();

    void close();
  }

  /** Java clients ({@code RegistryClient}), each registering its instance and watching the fleet. */
  private final class FullFleet implements Fleet {
    private final List<RegistryClient> clients = new ArrayList<>();
    private final AtomicReferenceArray<ServiceView> views = new AtomicReferenceArray<>(count);
    private final List<Disposable> watches = new ArrayList<>();

    FullFleet(ServiceName fleet) {
      for (int i = 0; i < count; i++) {
        clients.add(RegistryClient.builder().servers("tcp://127.0.0.1:" + port).clientName("fleet-" + i)
            .reconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(2)).build());
      }
      Flux.range(0, count)
          .flatMap(i -> clients.get(i).register(fleet, InstanceBody.of(ip(i), 8080, null, 1.0, Map.of())), 64)
          .blockLast(Duration.ofMinutes(2));
      for (int i = 0; i < count; i++) {
        int index = i;
        watches.add(clients.get(i).watch(fleet).subscribe(view -> views.set(index, view)));
      }
    }

    @Override
    public int largestView() {
      int largest = 0;
      for (int i = 0; i < views.length(); i++) {
        ServiceView view = views.get(i);
        if (view != null && !view.stale()) {
          largest = Math.max(largest, view.instances().size());
        }
      }
      return largest;
    }

    /** Views that show the whole fleet and are not stale. */
    @Override
    public int correctViews() {
      int correct = 0;
      for (int i = 0; i < views.length(); i++) {
        ServiceView view = views.get(i);
        if (view != null && !view.stale() && view.instances().size() == count) {
          correct++;
        }
      }
      return correct;
    }

    @Override
    public void close() {
      watches.forEach(Disposable::dispose);
      Flux.fromIterable(clients).flatMap(RegistryClient::close).blockLast(Duration.ofMinutes(1));
    }
  }

  /** Lean clients ({@link LeanStormClient}): the same frames, without the Java client's cost. */
  private final class LeanFleet implements Fleet {
    private final List<LeanStormClient> clients = new ArrayList<>();
    private final AtomicInteger errors = new AtomicInteger();

    LeanFleet(ServiceName fleet) {
      for (int i = 0; i < count; i++) {
        LeanStormClient client = new LeanStormClient(i, "127.0.0.1", port, fleet.service(), errors);
        clients.add(client);
        client.connect();
      }
    }

    @Override
    public int largestView() {
      return clients.stream().mapToInt(LeanStormClient::viewSize).max().orElse(0);
    }

    @Override
    public int correctViews() {
      return (int) clients.stream().filter(c -> c.registered() && c.viewSize() == count).count();
    }

    @Override
    public void close() {
      clients.forEach(LeanStormClient::close);
      if (errors.get() > 0) {
        System.out.printf(Locale.ROOT, "  the lean clients received %d ERROR frames, each client connecting again "
            + "after one (the first: %s)%n", errors.get(), LeanStormClient.firstError);
      }
    }
  }

  private static String ip(int i) {
    return LeanStormClient.ip(i);
  }

  private static void waitUntil(BooleanSupplier condition, Duration limit) throws InterruptedException {
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
