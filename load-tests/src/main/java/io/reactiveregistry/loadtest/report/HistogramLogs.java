package io.reactiveregistry.loadtest.report;

import io.reactiveregistry.loadtest.metrics.Metrics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * One HdrHistogram log per request type beside the report ({@code <request>.hlog}): each second's
 * latencies (microseconds) as an interval, readable by HdrHistogram's own tools
 * ({@code HistogramLogProcessor}, HdrHistogramVisualizer) to compare runs percentile by percentile.
 */
public final class HistogramLogs {
  private HistogramLogs() {}

  /** Writes the logs into {@code dir}; their paths. */
  public static List<Path> write(Metrics metrics, long startEpochMillis, Path dir) {
    List<Path> written = new ArrayList<>();
    for (Map.Entry<String, Map<Long, Histogram>> request : metrics.histogramsBySecond().entrySet()) {
      Path file = dir.resolve(request.getKey().replaceAll("[^A-Za-z0-9._-]", "_") + ".hlog");
      try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
        HistogramLogWriter log = new HistogramLogWriter(out);
        log.outputComment("request " + request.getKey() + ", latencies in microseconds, one interval per second");
        log.outputLogFormatVersion();
        log.outputStartTime(startEpochMillis);
        log.setBaseTime(startEpochMillis);
        log.outputLegend();
        for (Map.Entry<Long, Histogram> second : request.getValue().entrySet()) {
          Histogram interval = second.getValue().copy();
          interval.setStartTimeStamp(startEpochMillis + second.getKey() * 1_000);
          interval.setEndTimeStamp(startEpochMillis + (second.getKey() + 1) * 1_000);
          log.outputIntervalHistogram(interval);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      written.add(file);
    }
    return written;
  }
}
