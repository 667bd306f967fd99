package io.reactiveregistry.loadtest.engine;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server's own push latency over a run: from a change to its event being taken for a
 * subscriber's socket, as the registry's {@code registry_push_latency_seconds} histogram counts it,
 * read from its metrics endpoint before and after the run. Reported beside the end-to-end push
 * latency the subscribers measure, so that a fan-out's figures say how much of it is the server's.
 * Quantiles are estimated within the histogram's buckets as Prometheus's {@code
 * histogram_quantile} does (linearly inside the bucket), the bucket's bounds given beside them.
 */
public record ServerPushLatency(long events, double p50Ms, double p99Ms, double p99BucketMs) {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final String BUCKET = "registry_push_latency_seconds_bucket{";

  /** Cumulative counts by upper bound in seconds (+Inf last), as scraped; null when not there. */
  static TreeMap<Double, Double> scrape(URI metrics) {
    try {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).GET()
          .build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? parse(response.body()) : null;
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The histogram's buckets in a Prometheus text exposition; null when it has none. */
  static TreeMap<Double, Double> parse(String exposition) {
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (String line : exposition.lines().toList()) {
      if (!line.startsWith(BUCKET)) {
        continue;
      }
      int le = line.indexOf("le=\"");
      int close = line.indexOf('"', le + 4);
      int value = line.lastIndexOf(' ');
      if (le < 0 || close < 0 || value < close) {
        continue;
      }
      String bound = line.substring(le + 4, close);
      double upper = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
      buckets.merge(upper, Double.parseDouble(line.substring(value + 1).trim()), Double::sum);
    }
    return buckets.isEmpty() ? null : buckets;
  }

  /** What was counted between two scrapes; null when either is missing or nothing was pushed. */
  static ServerPushLatency between(TreeMap<Double, Double> before, TreeMap<Double, Double> after) {
    if (before == null || after == null) {
      return null;
    }
    TreeMap<Double, Double> counted = new TreeMap<>();
    for (Map.Entry<Double, Double> bucket : after.entrySet()) {
      counted.put(bucket.getKey(), bucket.getValue() - before.getOrDefault(bucket.getKey(), 0.0));
    }
    double total = counted.lastEntry().getValue();
    if (total <= 0) {
      return null;
    }
    return new ServerPushLatency((long) total, quantileMs(counted, 0.50), quantileMs(counted, 0.99),
        bucketMs(counted, 0.99));
  }

  /** As {@code histogram_quantile}: linear within the bucket the rank falls in. */
  private static double quantileMs(TreeMap<Double, Double> cumulative, double q) {
    double rank = q * cumulative.lastEntry().getValue();
    double lower = 0;
    double below = 0;
    for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
      if (bucket.getValue() >= rank) {
        if (bucket.getKey().isInfinite()) {
          return lower * 1000; // beyond the last finite bound: the bound, as Prometheus says
        }
        double inBucket = bucket.getValue() - below;
        double fraction = inBucket <= 0 ? 1 : (rank - below) / inBucket;
        return (lower + (bucket.getKey() - lower) * fraction) * 1000;
      }
      lower = bucket.getKey();
      below = bucket.getValue();
    }
    return lower * 1000;
  }

  /** The upper bound of the bucket the quantile falls in: what the histogram can vouch for. */
  private static double bucketMs(TreeMap<Double, Double> cumulative, double q) {
    double rank = q * cumulative.lastEntry().getValue();
    for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
      if (bucket.getValue() >= rank) {
        return bucket.getKey() * 1000;
      }
    }
    return Double.POSITIVE_INFINITY;
  }
}
