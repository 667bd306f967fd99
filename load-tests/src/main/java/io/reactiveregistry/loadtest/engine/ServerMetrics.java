package io.reactiveregistry.loadtest.engine;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads the server's own figures from its Prometheus endpoint ({@code /metrics}): CPU time of the
 * server process and heap in use. Used when no local pid is given; silent when unreachable.
 */
public final class ServerMetrics {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private ServerMetrics() {}

  /** A reading, or null when the endpoint cannot be reached or lacks the meters. */
  public record Reading(double cpuSeconds, long heapBytes) {}

  public static Reading read(URI metrics) {
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).GET()
          .build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return null;
      }
      double cpuNanos = -1;
      double heap = 0;
      for (String line : response.body().lines().toList()) {
        if (line.startsWith("process_cpu_time_ns_total ")) {
          cpuNanos = Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
        } else if (line.startsWith("jvm_memory_used_bytes{area=\"heap\"")) {
          heap += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
        }
      }
      return cpuNanos < 0 ? null : new Reading(cpuNanos / 1e9, (long) heap);
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
