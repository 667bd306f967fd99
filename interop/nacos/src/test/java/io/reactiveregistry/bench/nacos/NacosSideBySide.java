package io.reactiveregistry.bench.nacos;

import static io.reactiveregistry.server.e2e.ProcessCpu.compilerMillis;
import static io.reactiveregistry.server.e2e.ProcessCpu.cpuMillis;

import com.alibaba.nacos.api.PropertyKeyConst;
import com.alibaba.nacos.api.naming.NamingFactory;
import com.alibaba.nacos.api.naming.NamingService;
import com.alibaba.nacos.api.naming.listener.NamingEvent;
import com.alibaba.nacos.api.naming.pojo.Instance;
import io.reactiveregistry.server.Main;
import io.reactiveregistry.server.e2e.NacosPorts;
import io.reactiveregistry.server.nacos.NacosFloor;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This registry's Nacos door and a real Nacos server, side by side on one machine, driven by the
 * same Nacos client ({@code nacos-client} from Maven Central) with the same load, each server in
 * its own JVM with the same heap and at its defaults, its CPU read from {@code /proc} around each
 * phase:
 *
 * <ol>
 *   <li>registrations from 50 clients at once (each its own gRPC connection, each registering
 *       into {@code services} services, one instance in each, as Nacos's client keeps one
 *       instance per service and connection): registrations/s and server CPU per registration;
 *   <li>those instances kept for a minute with nothing else happening: server CPU per 1,000;
 *   <li>the heap they take, after a full GC, per instance;
 *   <li>a change reaching 100 subscribers (each its own client and connection): from the
 *       registration's call to each subscriber's listener, p50 and p99 over 20 changes.
 * </ol>
 *
 * <p>Beside this registry, its floor ({@code NacosFloor}: the door's gRPC port with prepared
 * answers and no registry behind it) takes the same warm-up and registrations, so that the
 * registration's cost can be read as gRPC's and the registry's.
 *
 * <pre>load-tests/bench/nacos-side-by-side.sh [services per client] [both|ours|nacos] [nacos-server.jar]</pre>
 */
public final class NacosSideBySide {
  static final int CLIENTS = 50;
  static final int SUBSCRIBERS = 100;
  static final int CHANGES = 20;
  static final int WARM_UP_SERVICES = 400;
  static final int WARM_UP_ROUNDS = 8;
  static final double WARM_UP_COMPILER_SHARE = 0.10;
  static final int WARM_UP_CHANGES = 5;

  public static void main(String[] args) throws Exception {
    int services = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    String which = args.length > 1 ? args[1] : "both";
    Path nacosJar = args.length > 2 ? Path.of(args[2]).toAbsolutePath() : null;
    Path dir = Files.createTempDirectory("nacos-bench");
    Map<String, List<String[]>> columns = new LinkedHashMap<>();
    if (!which.equals("nacos")) {
      columns.put("reactive-registry", run(Server.REGISTRY, services, dir, null));
      columns.put("floor (bare gRPC)", run(Server.FLOOR, services, dir, null));
    }
    if (!which.equals("ours") && nacosJar != null) {
      columns.put("nacos-server", run(Server.NACOS, services, dir, nacosJar));
    }
    System.out.println();
    System.out.printf(Locale.ROOT, "%-52s", "");
    columns.keySet().forEach(name -> System.out.printf(Locale.ROOT, " %18s", name));
    System.out.println();
    List<String> labels = new ArrayList<>();
    columns.values().forEach(rows -> rows.stream().map(row -> row[0]).filter(l -> !labels.contains(l))
        .forEach(labels::add));
    for (String label : labels) {
      System.out.printf(Locale.ROOT, "%-52s", label);
      for (List<String[]> rows : columns.values()) {
        System.out.printf(Locale.ROOT, " %18s", rows.stream().filter(row -> row[0].equals(label)).map(row -> row[1])
            .findFirst().orElse("-"));
      }
      System.out.println();
    }
    System.exit(0);
  }

  /**
   * The servers: this registry's jar with its Nacos door; the door's floor ({@code NacosFloor}: the
   * same gRPC port answering with prepared answers and nothing behind it, measured for the
   * registrations only); a Nacos server's jar.
   */
  enum Server {
    REGISTRY("reactive-registry"), FLOOR("floor"), NACOS("nacos-server");

    final String name;

    Server(String name) {
      this.name = name;
    }
  }

  static List<String[]> run(Server which, int services, Path dir, Path nacosJar) throws Exception {
    String name = which.name;
    int port = NacosPorts.freePair();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx1g", "-Xms1g", "-XX:+UseG1GC"));
    String extra = System.getProperty("bench.serverJvmArgs"); // a profiler's flags, say
    if (extra != null && !extra.isBlank()) {
      command.addAll(List.of(extra.trim().split("\\s+")));
    }
    if (which == Server.FLOOR) {
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), NacosFloor.class.getName(),
          Integer.toString(port)));
    } else if (which == Server.REGISTRY) {
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "--in-memory",
          "--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0",
          "--nacos-port", Integer.toString(port), "--self-preservation", "false"));
    } else {
      Path home = Files.createDirectories(dir.resolve("nacos-home"));
      command.addAll(List.of("-Dnacos.standalone=true", "-Dnacos.home=" + home, "-Dserver.port=" + port,
          "-Dnacos.core.auth.enabled=false", "-Dnacos.core.member.lookup.type=file",
          "-Dnacos.inetutils.ip-address=127.0.0.1", "-jar", nacosJar.toString()));
    }
    Path log = dir.resolve(name + ".log");
    // Each server runs in the bench's directory: Nacos writes its Derby log and access logs where it starts.
    Process server = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    List<String[]> rows = new ArrayList<>();
    List<NamingService> clients = new ArrayList<>();
    try {
      String address = "127.0.0.1:" + port;
      waitForGrpc(server, address, log);
      System.out.println(name + ": up (pid " + server.pid() + ")");
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(NamingFactory.createNamingService(properties(address)));
      }
      // 0. Warm-up: the same calls, not measured, so that both JVMs have compiled their paths (a
      // fresh JVM spends seconds of CPU compiling in its first seconds of load). One round of
      // 20,000 is not enough on two cores: C2's queue is still long when it ends, and its largest
      // compilations (each server's whole registration path inlined) land in the measured phase.
      // Rounds go on, by the same rule for both servers, until one spends less than a tenth of
      // the server's CPU in the JIT compiler's threads.
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      for (int round = 1; ; round++) {
        long roundCpu = cpuMillis(server);
        long roundCompiling = compilerMillis(server);
        register(pool, clients, "warm-", WARM_UP_SERVICES, true);
        double compilerShare = (compilerMillis(server) - roundCompiling)
            / (double) Math.max(1, cpuMillis(server) - roundCpu);
        System.out.printf(Locale.ROOT, "%s: warm-up round %d, %.0f %% of its CPU in the JIT compiler%n", name, round,
            compilerShare * 100);
        if (compilerShare < WARM_UP_COMPILER_SHARE || round == WARM_UP_ROUNDS) {
          rows.add(row("warm-up: rounds of 20,000 registrations", round));
          rows.add(row("  the JIT compiler's share of the last (%)", compilerShare * 100));
          break;
        }
      }
      System.out.println(name + ": warmed up");
      long heapBefore = heapUsed(server);

      // 1. Registrations from 50 clients at once.
      long cpu = cpuMillis(server);
      long compiling = compilerMillis(server);
      long start = System.nanoTime();
      register(pool, clients, "svc-", services, false);
      double seconds = (System.nanoTime() - start) / 1e9;
      long cpuUsed = cpuMillis(server) - cpu;
      long compiled = compilerMillis(server) - compiling;
      int registrations = CLIENTS * services;
      rows.add(row("registrations, 50 clients at once: per second", registrations / seconds));
      rows.add(row("  server CPU per registration (µs)", cpuUsed * 1_000.0 / registrations));
      rows.add(row("  the same without the JIT compiler's threads (µs)", (cpuUsed - compiled) * 1_000.0
          / registrations));
      System.out.println(name + ": " + registrations + " registrations in " + String.format("%.1f s", seconds));
      if (which == Server.FLOOR) {
        pool.shutdownNow();
        return rows; // the floor keeps nothing and pushes nothing: the rest has nothing to compare
      }

      // 2. Kept for a minute.
      Thread.sleep(5_000);
      cpu = cpuMillis(server);
      Thread.sleep(60_000);
      rows.add(row("server CPU per 1,000 instances kept 1 min (ms)", (cpuMillis(server) - cpu) * 1_000.0
          / registrations));

      // 3. Their heap.
      long heapAfter = heapUsed(server);
      rows.add(row("heap per instance, after a full GC (bytes)", (heapAfter - heapBefore) / (double) registrations));

      // 4. A change reaching 100 subscribers.
      List<NamingService> subscribers = new ArrayList<>();
      ConcurrentHashMap<Integer, List<Long>> arrivals = new ConcurrentHashMap<>();
      CountDownLatch[] round = new CountDownLatch[1];
      int[] expected = new int[1];
      for (int i = 0; i < SUBSCRIBERS; i++) {
        NamingService subscriber = NamingFactory.createNamingService(properties(address));
        subscribers.add(subscriber);
        boolean[] seen = new boolean[WARM_UP_CHANGES + CHANGES + 1];
        subscriber.subscribe("push-target", event -> {
          for (Instance instance : ((NamingEvent) event).getInstances()) {
            int change = instance.getPort() - 30_000;
            if (change >= 1 && change <= WARM_UP_CHANGES + CHANGES && !seen[change]) {
              seen[change] = true;
              arrivals.computeIfAbsent(change, k -> Collections.synchronizedList(new ArrayList<>()))
                  .add(System.nanoTime());
              if (change == expected[0] && round[0] != null) {
                round[0].countDown();
              }
            }
          }
        });
      }
      Thread.sleep(3_000);
      NamingService publisher = clients.get(0);
      List<Long> latencies = new ArrayList<>();
      for (int change = 1; change <= WARM_UP_CHANGES + CHANGES; change++) {
        expected[0] = change;
        round[0] = new CountDownLatch(SUBSCRIBERS);
        long sent = System.nanoTime();
        publisher.registerInstance("push-target", "127.0.0.1", 30_000 + change);
        round[0].await(30, TimeUnit.SECONDS);
        if (change > WARM_UP_CHANGES) {
          for (long arrived : arrivals.getOrDefault(change, List.of())) {
            latencies.add(arrived - sent);
          }
        }
        publisher.deregisterInstance("push-target", "127.0.0.1", 30_000 + change);
        Thread.sleep(1_000);
      }
      latencies.sort(null);
      rows.add(row("a change to 100 subscribers: p50 (ms)", percentile(latencies, 0.50) / 1e6));
      rows.add(row("  p99 (ms)", percentile(latencies, 0.99) / 1e6));
      rows.add(row("  pushes that arrived (of " + CHANGES * SUBSCRIBERS + ")", latencies.size()));
      for (NamingService subscriber : subscribers) {
        subscriber.shutDown();
      }
      pool.shutdownNow();
      return rows;
    } finally {
      for (NamingService client : clients) {
        try {
          client.shutDown();
        } catch (Exception ignored) {
          // the server goes next anyway
        }
      }
      server.destroy();
      server.waitFor(30, TimeUnit.SECONDS);
      server.destroyForcibly();
    }
  }

  /** Each client registers its instance in {@code services} services (and deregisters them, with {@code undo}). */
  static void register(ExecutorService pool, List<NamingService> clients, String prefix, int services, boolean undo)
      throws Exception {
    List<Future<?>> done = new ArrayList<>();
    for (int c = 0; c < clients.size(); c++) {
      NamingService client = clients.get(c);
      int instancePort = 20_000 + c;
      done.add(pool.submit(() -> {
        for (int s = 0; s < services; s++) {
          client.registerInstance(prefix + s, "127.0.0.1", instancePort);
        }
        if (undo) {
          for (int s = 0; s < services; s++) {
            client.deregisterInstance(prefix + s, "127.0.0.1", instancePort);
          }
        }
        return null;
      }));
    }
    for (Future<?> each : done) {
      each.get(10, TimeUnit.MINUTES);
    }
  }

  static Properties properties(String address) {
    Properties properties = new Properties();
    properties.setProperty(PropertyKeyConst.SERVER_ADDR, address);
    return properties;
  }

  static void waitForGrpc(Process server, String address, Path log) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        throw new IllegalStateException("the server exited; see " + log);
      }
      try (Socket probe = new Socket("127.0.0.1", Integer.parseInt(address.split(":")[1]) + 1000)) {
        Thread.sleep(2_000); // listening; give it a moment to finish starting
        return;
      } catch (IOException notYet) {
        Thread.sleep(500);
      }
    }
    throw new IllegalStateException("the server did not open its gRPC port in 3 minutes; see " + log);
  }

  static double percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
  }

  static String[] row(String label, double value) {
    return new String[] {label, String.format(Locale.ROOT, value >= 100 ? "%,.0f" : "%,.2f", value)};
  }

  /** Bytes of heap in use after a full GC, by the JDK's jcmd. */
  static long heapUsed(Process process) throws Exception {
    jcmd(process, "GC.run");
    String info = jcmd(process, "GC.heap_info");
    Matcher used = Pattern.compile("total \\d+K, used (\\d+)K").matcher(info);
    if (!used.find()) {
      throw new IllegalStateException("no heap figure in: " + info);
    }
    return Long.parseLong(used.group(1)) * 1024;
  }

  static String jcmd(Process process, String command) throws Exception {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    Process run = new ProcessBuilder(jcmd, Long.toString(process.pid()), command).redirectErrorStream(true).start();
    String out = new String(run.getInputStream().readAllBytes());
    run.waitFor();
    return out;
  }
}
