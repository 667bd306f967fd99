package io.reactiveregistry.server.e2e;

import static io.reactiveregistry.server.e2e.Registrations.registration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.storage.StorageConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * Every meter the README's table names, read from {@code GET /metrics} after a short scripted
 * session, each with the value that session must have produced.
 */
class MetricsEndToEndTest {
  @TempDir
  static Path data;

  private final ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
      .withStorage(StorageConfig.onDisk(data)).withNacos(new NacosDoor.Settings(0, 0)));
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    fixture.close();
  }

  private String scrape() throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fixture.server().httpPort()
        + "/metrics")).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** The value of one series, exactly as named with its tags; -1 when absent. */
  private double value(String series) throws Exception {
    for (String line : scrape().lines().toList()) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return -1;
  }

  @Test
  void everyMeterTheReadmeNamesIsThereWithWhatTheSessionDid() throws Exception {
    WireClient app = fixture.connect("app");
    WireClient watcher = fixture.connect("watcher");
    WireClient ops = fixture.connect("ops");
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    Disposable subscription = watcher.stream("service.subscribe", "{\"service\":\"orders\"}").subscribe(events::add);
    Disposable trace = ops.stream("admin.trace", "{}").subscribe();
    await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 1 && value("registry_trace_subscribers") == 1);

    app.call("instance.register", registration("orders", "127.0.0.5", 8080));
    app.call("instance.register", registration("orders", "127.0.0.6", 8080));
    ops.call("instance.register", "{\"service\":\"db\",\"ephemeral\":false,\"instance\":{\"ip\":\"127.0.0.9\","
        + "\"port\":5432}}");
    app.error("instance.register", registration("orders", "127.0.0.7", 0));
    app.fire("instance.heartbeat", "{}");
    app.fire("instance.heartbeat", "{\"service\":\"orders\",\"instance\":{\"ip\":\"127.0.0.1\",\"port\":-1}}");
    await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 3
        && value("registry_heartbeats_dropped_total") == 1);

    assertThat(value("registry_connections")).isEqualTo(3);
    await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
      assertThat(value("registry_instances{health=\"healthy\",type=\"ephemeral\"}")).isEqualTo(2);
      assertThat(value("registry_instances{health=\"healthy\",type=\"persistent\"}")
          + value("registry_instances{health=\"unhealthy\",type=\"persistent\"}")).isEqualTo(1);
    });
    assertThat(value("registry_services")).isEqualTo(2);
    assertThat(value("registry_changes_total{cause=\"REGISTER\"}")).isEqualTo(3);
    assertThat(value("registry_heartbeats_total")).isEqualTo(2); // {} refreshed two; the invalid one was dropped
    assertThat(value("registry_subscribers")).isEqualTo(1);
    assertThat(value("registry_events_pushed_total")).isEqualTo(3); // the SNAPSHOT, then SNAPSHOT and UPSERT
    assertThat(value("registry_push_latency_seconds_count")).isEqualTo(3); // one per event handed over
    assertThat(value("registry_requests_seconds_count{outcome=\"error\",route=\"instance.register\"}")).isEqualTo(1);
    assertThat(value("registry_requests_seconds_count{outcome=\"ok\",route=\"instance.register\"}")).isEqualTo(3);
    assertThat(value("registry_errors_total{code=\"INVALID_PARAM\"}")).isEqualTo(1);
    // Histograms: every latency has the README's buckets, cumulative, the last one counting all.
    for (String series : List.of("registry_requests_seconds_bucket{outcome=\"ok\",route=\"instance.register\",",
        "registry_push_latency_seconds_bucket{", "registry_storage_commit_seconds_bucket{")) {
      List<String> bounds = new ArrayList<>();
      Matcher bucket = Pattern.compile("(?m)^" + Pattern.quote(series) + "le=\"([^\"]+)\"} (\\S+)$").matcher(scrape());
      List<Double> counts = new ArrayList<>();
      while (bucket.find()) {
        bounds.add(bucket.group(1));
        counts.add(Double.parseDouble(bucket.group(2)));
      }
      assertThat(bounds).as(series).extracting(MetricsEndToEndTest::seconds)
          .isEqualTo(readmeBuckets().stream().map(MetricsEndToEndTest::seconds).toList());
      assertThat(counts).as(series + " cumulative").isSorted();
    }
    assertThat(value("registry_requests_seconds_bucket{outcome=\"ok\",route=\"instance.register\",le=\"+Inf\"}"))
        .isEqualTo(3);
    assertThat(value("registry_push_latency_seconds_bucket{le=\"+Inf\"}")).isEqualTo(3);
    assertThat(value("registry_self_preservation")).isZero();
    assertThat(value("registry_storage_pending")).isZero();
    // A single server leads its own one-member group.
    await().atMost(Duration.ofSeconds(2)).until(() -> value("registry_cluster_leader") == 1
        && scrape().matches("(?s).*\nregistry_cluster_member_reachable\\{member=\"[0-9a-f-]{36}\"} 1\\.0\n.*"));
    assertThat(value("registry_storage_commit_seconds_count")).isGreaterThanOrEqualTo(2); // reservation + db
    assertThat(scrape()).containsPattern("(?m)^netty_allocator_memory_used_bytes\\{.*type=\"direct\".*} ")
        .containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^process_cpu_usage ");

    // And nothing the README names is missing from a scrape.
    String scrape = scrape();
    for (String meter : readmeMeters()) {
      assertThat(scrape).as(meter).containsPattern("(?m)^" + Pattern.quote(meter) + "[{ ]");
    }
    subscription.dispose();
    trace.dispose();
  }

  /**
   * The bucket bounds the README's metrics section gives, in seconds as Prometheus writes them,
   * then +Inf; and they are the server's own.
   */
  private static List<String> readmeBuckets() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    Matcher line = Pattern.compile("Every latency is a histogram with the buckets ((?:`[0-9.]+`,? )+)seconds").matcher(readme);
    assertThat(line.find()).as("the README names the latency buckets").isTrue();
    List<String> bounds = new ArrayList<>();
    for (String bound : line.group(1).replace("`", "").split(",\\s*")) {
      bounds.add(bound.strip());
    }
    assertThat(bounds).extracting(Double::parseDouble).containsExactlyElementsOf(
        java.util.Arrays.stream(io.reactiveregistry.server.metrics.ServerMeters.LATENCY_BUCKETS)
            .map(bucket -> bucket.toNanos() / 1e9).toList());
    bounds.add("+Inf");
    return bounds;
  }

  private static double seconds(String bound) {
    return bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
  }

  /** The `registry_*` names in the first column of the README's metrics table. */
  private static List<String> readmeMeters() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    String table = readme.substring(readme.indexOf("## Metrics"), readme.indexOf("## Modules and tests"));
    List<String> meters = new ArrayList<>();
    Matcher name = Pattern.compile("^\\| (.*?) \\|", Pattern.MULTILINE).matcher(table);
    while (name.find()) {
      Matcher each = Pattern.compile("`(registry_[a-z_]+)").matcher(name.group(1));
      while (each.find()) {
        meters.add(each.group(1).replaceFirst("_seconds$", "_seconds_count"));
      }
    }
    assertThat(meters).hasSizeGreaterThanOrEqualTo(15);
    return meters;
  }
}
