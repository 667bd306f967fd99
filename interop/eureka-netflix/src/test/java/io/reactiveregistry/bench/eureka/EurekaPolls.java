package io.reactiveregistry.bench.eureka;

import static io.reactiveregistry.server.e2e.ProcessCpu.cpuMillis;

import io.reactiveregistry.server.Main;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What an Eureka fleet's polls cost this registry's server, alone on the machine (no Eureka server
 * beside it): the whole registry fetched with nothing changed, the delta polled with nothing
 * changed, and the delta polled right after each change. Every Eureka client does the first once
 * and the second every 30 s; the third is the poll that follows a change during a deploy. Each
 * phase is warmed, then read three times; gzip throughout, as Eureka's clients ask. First, what
 * each instance costs the heap.
 * {@code load-tests/bench/eureka-side-by-side.sh} builds the class path; this runs with it:
 * {@code load-tests/bench/eureka-polls.sh [instances, default 15000]}.
 */
public final class EurekaPolls {
  static final int POLLS = 2_000;
  static final int CHANGES = 40;

  public static void main(String[] args) throws Exception {
    int instances = args.length > 0 ? Integer.parseInt(args[0]) : 15_000;
    Path dir = Files.createTempDirectory("eureka-polls");
    int port = EurekaSideBySide.freePort();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx1g", "-XX:+UseG1GC", "-cp",
        System.getProperty("java.class.path"), Main.class.getName(), "--in-memory", "--host", "127.0.0.1", "--port",
        Integer.toString(EurekaSideBySide.freePort()), "--ws-port", "0", "--http-port", Integer.toString(port),
        "--nacos-port", "-1", "--self-preservation", "false"));
    Process server = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("server.log").toFile()).start();
    try {
      String base = "http://127.0.0.1:" + port + "/eureka";
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (EurekaSideBySide.status(EurekaSideBySide.get(base + "/apps")) != 200) {
        if (System.nanoTime() > deadline || !server.isAlive()) {
          throw new IllegalStateException("the server did not start: " + Files.readString(dir.resolve("server.log")));
        }
        Thread.sleep(200);
      }
      // The readiness check above was a full fetch, as an Eureka client's first call: changes are
      // kept for the delta from there on, and the delta holds every registration below.
      long heapBefore = liveHeapKib(server);
      EurekaSideBySide.many(instances, EurekaSideBySide.IN_FLIGHT,
          i -> EurekaSideBySide.register(base, "APP-" + (i % EurekaSideBySide.APPS), i));
      System.out.printf(Locale.ROOT, "%,d instances registered: %,d B of live heap each (after a full GC)%n",
          instances, (liveHeapKib(server) - heapBefore) * 1024 / instances);

      for (String path : List.of("/apps", "/apps/delta")) {
        polls(base + path, POLLS * 3); // to warm
        for (int run = 1; run <= 3; run++) {
          long cpu = cpuMillis(server);
          long start = System.nanoTime();
          polls(base + path, POLLS);
          System.out.printf(Locale.ROOT, "GET %s, nothing changed: %.2f ms a poll, %.3f ms of server CPU%n", path,
              (System.nanoTime() - start) / 1e6 / POLLS, (cpuMillis(server) - cpu) / (double) POLLS);
        }
      }
      for (int run = 0; run <= 3; run++) { // the first to warm
        long[] times = new long[CHANGES];
        long cpu = cpuMillis(server);
        for (int c = 0; c < CHANGES; c++) {
          EurekaSideBySide.register(base, "CHURN", run * CHANGES + c).join();
          long start = System.nanoTime();
          fetch(base + "/apps/delta");
          times[c] = System.nanoTime() - start;
        }
        long used = cpuMillis(server) - cpu;
        Arrays.sort(times);
        if (run > 0) {
          System.out.printf(Locale.ROOT, "GET /apps/delta right after a change: median %.1f ms, max %.1f ms, "
              + "%.1f ms of server CPU a change and its poll%n", times[CHANGES / 2] / 1e6, times[CHANGES - 1] / 1e6,
              used / (double) CHANGES);
        }
      }
      System.exit(0);
    } finally {
      server.destroy();
      server.waitFor();
    }
  }

  /** The server's heap in use after two full collections (`jcmd GC.run`, then `GC.heap_info`), in KiB. */
  private static long liveHeapKib(Process server) throws Exception {
    String pid = Long.toString(server.pid());
    for (int i = 0; i < 2; i++) {
      new ProcessBuilder("jcmd", pid, "GC.run").redirectErrorStream(true).start().waitFor();
    }
    Process info = new ProcessBuilder("jcmd", pid, "GC.heap_info").redirectErrorStream(true).start();
    String text = new String(info.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    info.waitFor();
    java.util.regex.Matcher used = java.util.regex.Pattern.compile("used (\\d+)K").matcher(text);
    if (!used.find()) {
      throw new IllegalStateException("no heap figure in jcmd's answer: " + text);
    }
    return Long.parseLong(used.group(1));
  }

  private static void polls(String uri, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      fetch(uri);
    }
  }

  private static void fetch(String uri) throws Exception {
    HttpResponse<Void> answer = EurekaSideBySide.HTTP.send(HttpRequest.newBuilder(URI.create(uri))
        .header("Accept", "application/json").header("Accept-Encoding", "gzip").build(),
        HttpResponse.BodyHandlers.discarding());
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(uri + " answered " + answer.statusCode());
    }
  }
}
