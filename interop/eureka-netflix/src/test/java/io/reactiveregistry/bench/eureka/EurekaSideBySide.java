package io.reactiveregistry.bench.eureka;

import static io.reactiveregistry.server.e2e.ProcessCpu.compilerMillis;
import static io.reactiveregistry.server.e2e.ProcessCpu.cpuMillis;

import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.server.Main;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import reactor.core.Disposable;

/**
 * This registry's Eureka door and a real Eureka server (Spring Cloud Netflix's), side by side on
 * one machine, driven by the same client with the same load: each server in its own JVM with the
 * same heap, its CPU read from {@code /proc} around each phase. Phases: registrations (alone on
 * one connection, then 32 in flight), renewals, full fetches, and how long a registration takes to
 * show in {@code /apps/delta} (and, for this registry, to reach an RSocket subscriber).
 *
 * <pre>load-tests/bench/eureka-side-by-side.sh [instances]</pre>
 */
public final class EurekaSideBySide {
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final int IN_FLIGHT = 32;
  static final int APPS = 100;
  static final int WARM_UP = 20_000;
  /**
   * Requests in each lone phase (one at a time on one connection): 1,000 took a third of a second,
   * thirty of /proc's 10 ms ticks, and moved by a factor of two between runs.
   */
  static final int ALONE = 5_000;
  static final int WARM_UP_PASSES_AT_LEAST = 2;
  static final int WARM_UP_PASSES_AT_MOST = 8;
  static final double WARM_UP_COMPILER_SHARE = 0.10;

  public static void main(String[] args) throws Exception {
    int instances = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    Path dir = Files.createTempDirectory("eureka-bench");
    String which = args.length > 1 ? args[1] : "both";
    List<Kind> kinds = switch (which) {
      case "ours" -> List.of(Kind.OURS);
      case "eureka" -> List.of(Kind.EUREKA);
      case "floor" -> List.of(Kind.FLOOR);
      case "all" -> List.of(Kind.OURS, Kind.EUREKA, Kind.FLOOR);
      default -> List.of(Kind.OURS, Kind.EUREKA);
    };
    List<Result> results = new ArrayList<>();
    for (Kind kind : kinds) {
      results.add(run(kind.label, instances, dir, kind));
    }
    List<String> report = new ArrayList<>();
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-44s", ""));
    kinds.forEach(kind -> header.append(String.format(Locale.ROOT, " %18s", kind.label)));
    report.add(header.toString());
    int rows = results.stream().mapToInt(result -> result.lines.size()).max().orElse(0);
    Result longest = results.stream().filter(result -> result.lines.size() == rows).findFirst().orElseThrow();
    for (int i = 0; i < rows; i++) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-44s", longest.lines.get(i)[0]));
      for (Result result : results) {
        line.append(String.format(Locale.ROOT, " %18s", i < result.lines.size() ? result.lines.get(i)[1] : "-"));
      }
      report.add(line.toString());
    }
    System.out.println();
    report.forEach(System.out::println);
    System.exit(0);
  }

  /**
   * This registry's Eureka door, Spring Cloud Netflix's Eureka server, and the floor: Reactor
   * Netty's bare HTTP server reading each request and answering it as the door does (load-tests'
   * FloorServer), measured for registrations and renewals only.
   */
  enum Kind {
    OURS("reactive-registry"), EUREKA("eureka-server"), FLOOR("bare HTTP (floor)");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  record Result(List<String[]> lines) {}

  static Result run(String name, int instances, Path dir, Kind kind) throws Exception {
    boolean ours = kind == Kind.OURS;
    int port = freePort();
    int tcp = freePort();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx1g", "-XX:+UseG1GC"));
    String extra = System.getProperty("bench.serverJvmArgs"); // a profiler's flags, say
    if (extra != null && !extra.isBlank()) {
      command.addAll(List.of(extra.trim().split("\\s+")));
    }
    command.addAll(List.of("-cp", kind == Kind.FLOOR ? "load-tests/target/load-tests.jar"
        : System.getProperty("java.class.path")));
    if (kind == Kind.FLOOR) {
      command.addAll(List.of("io.reactiveregistry.loadtest.floor.FloorServer", "--rsocket-port", "-1", "--http-port",
          Integer.toString(port)));
    } else if (ours) {
      command.addAll(List.of(Main.class.getName(), "--in-memory", "--host", "127.0.0.1", "--port",
          Integer.toString(tcp), "--ws-port", "0", "--http-port", Integer.toString(port), "--nacos-port", "-1",
          "--self-preservation", "false"));
    } else {
      command.addAll(List.of(EurekaServerMain.class.getName(), "--server.port=" + port, "--server.address=127.0.0.1",
          "--eureka.client.register-with-eureka=false", "--eureka.client.fetch-registry=false",
          "--eureka.server.enable-self-preservation=false", "--logging.level.root=WARN",
          "--spring.main.banner-mode=off"));
    }
    Process server = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile()).start();
    try {
      String base = "http://127.0.0.1:" + port + "/eureka";
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (status(get(base + "/apps")) != 200) {
        if (System.nanoTime() > deadline || !server.isAlive()) {
          throw new IllegalStateException(name + " did not start: " + Files.readString(dir.resolve(name + ".log")));
        }
        Thread.sleep(200);
      }
      List<String[]> lines = new ArrayList<>();
      // Warm-up: the JIT compiles both servers' paths before anything is measured (the first
      // 20,000 registrations of a fresh server cost several times what later ones do). A fixed
      // number of passes is not enough on two cores: C2's queue can still be long when they end,
      // and its largest compilations (each server's whole registration path inlined) then land in
      // the measured phases. Passes go on, by the same rule for every server, until one spends less
      // than a tenth of the server's CPU in the JIT compiler's threads (as the Nacos bench does).
      for (int pass = 1; ; pass++) {
        long passCpu = cpuMillis(server);
        long passCompiling = compilerMillis(server);
        many(WARM_UP, IN_FLIGHT, i -> register(base, "WARM-" + (i % APPS), i));
        for (int round = 0; round < 3; round++) {
          many(WARM_UP, IN_FLIGHT, i -> renew(base, "WARM-" + (i % APPS), i));
        }
        for (int f = 0; f < 20; f++) {
          status(get(base + "/apps"));
          status(get(base + "/apps/delta"));
        }
        many(WARM_UP, IN_FLIGHT, i -> send(HttpRequest.newBuilder(URI.create(base + "/apps/WARM-" + (i % APPS)
            + "/warm-" + (i % APPS) + "-" + i)).DELETE()));
        double compilerShare = (compilerMillis(server) - passCompiling) / (double) Math.max(1, cpuMillis(server)
            - passCpu);
        System.out.printf(Locale.ROOT, "%s: warm-up pass %d, %.0f %% of its CPU in the JIT compiler%n", name, pass,
            compilerShare * 100);
        if (pass >= WARM_UP_PASSES_AT_LEAST && compilerShare < WARM_UP_COMPILER_SHARE
            || pass == WARM_UP_PASSES_AT_MOST) {
          lines.add(row("warm-up passes", pass));
          lines.add(row("  the JIT compiler's share of the last (%)", compilerShare * 100));
          break;
        }
      }

      // A registration alone on its connection: one at a time, as an application starting registers.
      long cpu = cpuMillis(server);
      long start = System.nanoTime();
      many(ALONE, 1, i -> register(base, "ALONE", i));
      double aloneMicros = (System.nanoTime() - start) / 1_000.0 / ALONE;
      double aloneCpu = (cpuMillis(server) - cpu) * 1_000.0 / ALONE;
      lines.add(row("registration alone: latency (µs)", aloneMicros));
      lines.add(row("registration alone: server CPU (µs)", aloneCpu));
      cpu = cpuMillis(server);
      start = System.nanoTime();
      many(ALONE, 1, i -> renew(base, "ALONE", i));
      lines.add(row("renewal alone: latency (µs)", (System.nanoTime() - start) / 1_000.0 / ALONE));
      lines.add(row("renewal alone: server CPU (µs)", (cpuMillis(server) - cpu) * 1_000.0 / ALONE));

      cpu = cpuMillis(server);
      long compiling = compilerMillis(server);
      start = System.nanoTime();
      many(instances, IN_FLIGHT, i -> register(base, "APP-" + (i % APPS), i));
      double seconds = (System.nanoTime() - start) / 1e9;
      long cpuUsed = cpuMillis(server) - cpu;
      lines.add(row("registrations/s (" + IN_FLIGHT + " in flight)", instances / seconds));
      lines.add(row("  server CPU per registration (µs)", cpuUsed * 1_000.0 / instances));
      lines.add(row("  of it in the JIT compiler's threads (µs)", (compilerMillis(server) - compiling) * 1_000.0
          / instances));

      cpu = cpuMillis(server);
      compiling = compilerMillis(server);
      start = System.nanoTime();
      for (int round = 0; round < 3; round++) {
        many(instances, IN_FLIGHT, i -> renew(base, "APP-" + (i % APPS), i));
      }
      seconds = (System.nanoTime() - start) / 1e9;
      lines.add(row("renewals/s (" + IN_FLIGHT + " in flight)", 3.0 * instances / seconds));
      lines.add(row("  server CPU per 1,000 renewals (ms)", (cpuMillis(server) - cpu) * 1_000.0 / (3.0 * instances)));
      lines.add(row("  of it in the JIT compiler's threads (ms)", (compilerMillis(server) - compiling) * 1_000.0
          / (3.0 * instances)));
      if (kind == Kind.FLOOR) {
        return new Result(lines); // the floor holds no registry: nothing to fetch
      }

      // Eureka's server answers fetches from a cache refreshed every 30 s: the fetches are measured
      // once its answer holds exactly the instances registered, so that both servers send the same
      // registry (not "at least": a stale answer still holds the warm-up's last pass, cancelled
      // since, and would be compared with a smaller document).
      long waitedFrom = System.nanoTime();
      int held;
      while ((held = count(HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps"))
          .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString()).body(),
          "\"instanceId\"")) != instances + ALONE) {
        if (System.nanoTime() - waitedFrom > Duration.ofSeconds(90).toNanos()) {
          throw new IllegalStateException(name + "'s full fetch never held exactly the " + (instances + ALONE)
              + " instances registered: " + held);
        }
        Thread.sleep(500);
      }
      lines.add(row("full fetch holds every instance after (s)", (System.nanoTime() - waitedFrom) / 1e9));
      HttpResponse<byte[]> plain = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps"))
          .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofByteArray());
      HttpResponse<byte[]> zipped = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps"))
          .header("Accept", "application/json").header("Accept-Encoding", "gzip").build(),
          HttpResponse.BodyHandlers.ofByteArray());
      lines.add(row("full fetch of " + (instances + ALONE) + ": JSON bytes", plain.body().length));
      lines.add(row("  gzipped bytes", zipped.body().length));
      // The warm-up's fetches came after changes (a document rendered anew): the path that sends a
      // kept document is warmed here first, by the registrations' rule: rounds of 500 fetches until
      // one spends less than a tenth of the server's CPU in the JIT compiler's threads (a fetch is
      // a millisecond, so its path reaches C2's thresholds thousands of fetches later than a
      // registration's does). Then 200, so that /proc's 10 ms ticks are 0.05 ms each.
      for (int round = 1; ; round++) {
        long roundCpu = cpuMillis(server);
        long roundCompiling = compilerMillis(server);
        for (int f = 0; f < 500; f++) {
          HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps")).header("Accept", "application/json")
              .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.discarding());
        }
        double compilerShare = (compilerMillis(server) - roundCompiling) / (double) Math.max(1, cpuMillis(server)
            - roundCpu);
        if (round >= WARM_UP_PASSES_AT_LEAST && compilerShare < WARM_UP_COMPILER_SHARE
            || round == WARM_UP_PASSES_AT_MOST) {
          lines.add(row("  fetch warm-up rounds of 500", round));
          lines.add(row("  the JIT compiler's share of the last (%)", compilerShare * 100));
          break;
        }
      }
      cpu = cpuMillis(server);
      compiling = compilerMillis(server);
      start = System.nanoTime();
      int fetches = 200;
      for (int f = 0; f < fetches; f++) {
        HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps")).header("Accept", "application/json")
            .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.discarding());
      }
      lines.add(row("  time per fetch, gzip (ms)", (System.nanoTime() - start) / 1e6 / fetches));
      lines.add(row("  server CPU per fetch (ms)", (cpuMillis(server) - cpu) / (double) fetches));
      lines.add(row("  of it in the JIT compiler's threads (ms)", (compilerMillis(server) - compiling)
          / (double) fetches));
      // The same fetch right after a change: no cached answer to serve.
      cpu = cpuMillis(server);
      start = System.nanoTime();
      for (int f = 0; f < 10; f++) {
        renewOrRegisterChange(base, f);
        HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps")).header("Accept", "application/json")
            .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.discarding());
      }
      lines.add(row("  after a change: time per fetch (ms)", (System.nanoTime() - start) / 1e6 / 10));
      lines.add(row("  after a change: server CPU (ms)", (cpuMillis(server) - cpu) / 10.0));

      // A change: how long until /apps/delta shows it (an Eureka client sees it at its next poll after that).
      AtomicLong pushedAt = new AtomicLong(-1);
      RegistryClient subscriber = null;
      Disposable watch = null;
      if (ours) {
        subscriber = RegistryClient.builder().servers("tcp://127.0.0.1:" + tcp).clientName("bench").build();
        watch = subscriber.events(ServiceName.of("late"), null, false).subscribe(event -> {
          boolean arrived = ServiceEvent.UPSERT.equals(event.type())
              || event.instances() != null && !event.instances().isEmpty();
          if (arrived) {
            pushedAt.compareAndSet(-1, System.nanoTime());
          }
        });
        Thread.sleep(1_000);
      }
      long changed = System.nanoTime();
      register(base, "LATE", 1).join();
      long inDelta = -1;
      while (System.nanoTime() - changed < Duration.ofSeconds(120).toNanos()) {
        String delta = new String(HTTP.send(HttpRequest.newBuilder(URI.create(base + "/apps/delta"))
            .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofByteArray()).body());
        if (delta.contains("late-1")) {
          inDelta = System.nanoTime();
          break;
        }
        Thread.sleep(50);
      }
      lines.add(row("a registration in /apps/delta after (ms)", inDelta < 0 ? -1 : (inDelta - changed) / 1e6));
      lines.add(row("  the delta then: instances in it", count(new String(HTTP.send(HttpRequest.newBuilder(
          URI.create(base + "/apps/delta")).header("Accept", "application/json").build(),
          HttpResponse.BodyHandlers.ofByteArray()).body()), "\"instanceId\"")));
      if (ours) {
        lines.add(new String[] {"  pushed to an RSocket subscriber after (ms)",
            pushedAt.get() < 0 ? "-" : String.format(Locale.ROOT, "%.1f", (pushedAt.get() - changed) / 1e6)});
        watch.dispose();
        subscriber.closeAndWait();
      } else {
        lines.add(new String[] {"  pushed to an RSocket subscriber after (ms)", "(no push)"});
      }
      System.out.println(name + ": " + lines.stream().map(Arrays::toString).toList());
      return new Result(lines);
    } finally {
      server.destroy();
      server.waitFor();
    }
  }

  static int count(String text, String what) {
    int found = 0;
    for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + 1)) {
      found++;
    }
    return found;
  }

  static void renewOrRegisterChange(String base, int f) {
    register(base, "CHURN", f).join();
  }

  static String[] row(String label, double value) {
    return new String[] {label, String.format(Locale.ROOT, value >= 100 ? "%,.0f" : "%.2f", value)};
  }

  static CompletableFuture<Integer> register(String base, String app, int i) {
    String id = app.toLowerCase(Locale.ROOT) + "-" + i;
    String ip = "127." + (1 + i / 65_000) + "." + (i / 250 % 250) + "." + (1 + i % 250);
    String body = "{\"instance\":{\"instanceId\":\"" + id + "\",\"hostName\":\"" + ip + "\",\"app\":\"" + app
        + "\",\"ipAddr\":\"" + ip + "\",\"status\":\"UP\",\"overriddenStatus\":\"UNKNOWN\","
        + "\"port\":{\"$\":8080,\"@enabled\":\"true\"},\"securePort\":{\"$\":443,\"@enabled\":\"false\"},"
        + "\"countryId\":1,\"dataCenterInfo\":{\"@class\":\"com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo\","
        + "\"name\":\"MyOwn\"},\"leaseInfo\":{\"renewalIntervalInSecs\":30,\"durationInSecs\":90},"
        + "\"metadata\":{\"management.port\":\"8080\"},\"homePageUrl\":\"http://" + ip + ":8080/\","
        + "\"statusPageUrl\":\"http://" + ip + ":8080/actuator/info\",\"healthCheckUrl\":\"http://" + ip
        + ":8080/actuator/health\",\"vipAddress\":\"" + app.toLowerCase(Locale.ROOT) + "\",\"secureVipAddress\":\""
        + app.toLowerCase(Locale.ROOT) + "\",\"isCoordinatingDiscoveryServer\":\"false\","
        + "\"lastUpdatedTimestamp\":\"1764700000000\",\"lastDirtyTimestamp\":\"1764700000000\"}}";
    return send(HttpRequest.newBuilder(URI.create(base + "/apps/" + app)).header("Content-Type", "application/json")
        .header("Accept-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  static CompletableFuture<Integer> renew(String base, String app, int i) {
    String id = app.toLowerCase(Locale.ROOT) + "-" + i;
    return send(HttpRequest.newBuilder(URI.create(base + "/apps/" + app + "/" + id
        + "?status=UP&lastDirtyTimestamp=1764700000000")).header("Content-Type", "application/json")
        .header("Accept", "application/json").PUT(HttpRequest.BodyPublishers.noBody()));
  }

  static CompletableFuture<Integer> send(HttpRequest.Builder request) {
    return HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding()).thenApply(HttpResponse::statusCode);
  }

  static int status(CompletableFuture<Integer> answer) {
    try {
      return answer.join();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  static CompletableFuture<Integer> get(String uri) {
    return send(HttpRequest.newBuilder(URI.create(uri)).header("Accept", "application/json"));
  }

  /** {@code count} requests, at most {@code inFlight} at a time; fails on any answer not 2xx. */
  static void many(int count, int inFlight, IntFunction<CompletableFuture<Integer>> request) throws Exception {
    Semaphore slots = new Semaphore(inFlight);
    AtomicInteger failed = new AtomicInteger();
    for (int i = 0; i < count; i++) {
      slots.acquire();
      request.apply(i).whenComplete((code, error) -> {
        if (error != null || code / 100 != 2) {
          failed.incrementAndGet();
        }
        slots.release();
      });
    }
    slots.acquire(inFlight);
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " of " + count + " requests failed");
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
