package io.reactiveregistry.loadtest.report;

import io.reactiveregistry.loadtest.dsl.Assertion;
import io.reactiveregistry.loadtest.engine.RunResult;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.loadtest.metrics.Metrics.SecondPoint;
import io.reactiveregistry.loadtest.metrics.RequestStats;
import io.reactiveregistry.protocol.codec.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes {@code <dir>/<simulation>-<time>/index.html}: one file with everything inlined — the
 * figures, the charts' data, and uPlot (from its WebJar) — so it opens anywhere, offline.
 */
public final class HtmlReport {
  private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private HtmlReport() {}

  /** Writes the report and returns the path of its {@code index.html}. */
  public static Path write(RunResult result, Path reportsDir) {
    Path dir = reportsDir.resolve(result.simulation().toLowerCase(Locale.ROOT) + "-" + STAMP.format(result.startedAt()));
    try {
      Files.createDirectories(dir);
      Path index = dir.resolve("index.html");
      Files.writeString(index, render(result), StandardCharsets.UTF_8);
      return index;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String render(RunResult result) {
    StringBuilder html = new StringBuilder(256 * 1024);
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
        .append(escape(result.simulation())).append(" — load test report</title>\n<style>")
        .append(resource(UPLOT + "uPlot.min.css"))
        .append("\nbody{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em;color:#222}"
            + "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
            + "text-align:right}th:first-child,td:first-child{text-align:left}"
            + ".pass{color:#17803d;font-weight:bold}.fail{color:#b3261e;font-weight:bold}"
            + "h2{margin-top:1.6em}.chart{margin:1em 0}</style>\n</head><body>\n");
    html.append("<h1>").append(escape(result.simulation())).append("</h1>\n<p>Target ")
        .append(escape(result.target().toString())).append(" · ").append(result.users()).append(" users · ")
        .append(String.format(Locale.ROOT, "%.1f s", result.durationSeconds())).append(" · started ")
        .append(result.startedAt()).append("</p>\n");
    if (!result.parameters().isEmpty()) {
      html.append("<p>Parameters: <code>").append(escape(result.parameters().toString())).append("</code></p>\n");
    }
    html.append("<h2>Assertions</h2>\n<table id=\"assertions\"><tr><th>assertion</th><th>actual</th><th>result</th></tr>\n");
    for (Assertion.Result a : result.assertions()) {
      html.append("<tr><td>").append(escape(a.description())).append("</td><td>").append(escape(a.actual()))
          .append("</td><td class=\"").append(a.passed() ? "pass\">PASS" : "fail\">FAIL").append("</td></tr>\n");
    }
    html.append("</table>\n<h2>Requests</h2>\n<table id=\"stats\"><tr><th>request</th><th>count</th><th>ok</th>"
        + "<th>ko</th><th>min ms</th><th>p50 ms</th><th>p75 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th>"
        + "<th>mean/s</th></tr>\n");
    for (RequestStats s : result.stats()) {
      html.append(String.format(Locale.ROOT,
          "<tr data-request=\"%s\"><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
              + "<td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.1f</td></tr>%n",
          escape(s.name()), escape(s.name()), s.count(), s.ok(), s.ko(), s.minUs() / 1e3, s.p50Us() / 1e3,
          s.p75Us() / 1e3, s.p95Us() / 1e3, s.p99Us() / 1e3, s.maxUs() / 1e3, s.meanRatePerSec()));
    }
    html.append("</table>\n");
    List<Metrics.ErrorCount> errors = result.metrics().errors();
    if (!errors.isEmpty()) {
      html.append("<h2>Errors</h2>\n<table id=\"errors\"><tr><th>request</th><th>error</th><th>count</th></tr>\n");
      for (Metrics.ErrorCount error : errors) {
        html.append("<tr><td>").append(escape(error.request())).append("</td><td>").append(escape(error.message()))
            .append("</td><td>").append(error.count()).append("</td></tr>\n");
      }
      html.append("</table>\n");
    }
    if (result.serverUsage() != null) {
      RunResult.ServerUsage usage = result.serverUsage();
      html.append(String.format(Locale.ROOT, "<p>Server CPU: %.2f s (%.0f %% of one core on average)%s, from %s</p>%n",
          usage.cpuSeconds(), usage.cpuPercentOfOneCore(), usage.heapBytesAtEnd() < 0 ? ""
              : String.format(Locale.ROOT, "; heap in use at the end: %.1f MB", usage.heapBytesAtEnd() / 1e6),
          escape(usage.source())));
    }
    html.append("<h2>Throughput (requests per second)</h2><div class=\"chart\" id=\"throughput\"></div>\n"
        + "<h2>Latency p50 per second (ms)</h2><div class=\"chart\" id=\"median\"></div>\n"
        + "<h2>Latency p99 per second (ms)</h2><div class=\"chart\" id=\"latency\"></div>\n"
        + "<h2>Errors per second</h2><div class=\"chart\" id=\"errors\"></div>\n"
        + "<h2>Active users</h2><div class=\"chart\" id=\"users\"></div>\n");
    html.append("<script>").append(resource(UPLOT + "uPlot.iife.min.js")).append("</script>\n");
    html.append("<script>const DATA=").append(JsonCodec.json().encodeToString(chartData(result)).replace("</", "<\\/"))
        .append(";\n").append(CHART_SCRIPT).append("</script>\n</body></html>\n");
    return html.toString();
  }

  private static Map<String, Object> chartData(RunResult result) {
    Map<String, List<SecondPoint>> series = result.metrics().timeSeries();
    Map<String, Object> data = new LinkedHashMap<>();
    List<Integer> users = result.metrics().activeUsersPerSecond();
    List<Long> seconds = new ArrayList<>();
    for (int i = 0; i < users.size(); i++) {
      seconds.add((long) i);
    }
    data.put("seconds", seconds);
    data.put("users", users);
    Map<String, List<Long>> throughput = new LinkedHashMap<>();
    Map<String, List<Double>> p50 = new LinkedHashMap<>();
    Map<String, List<Double>> p99 = new LinkedHashMap<>();
    Map<String, List<Long>> errors = new LinkedHashMap<>();
    series.forEach((name, points) -> {
      if (name.startsWith("scenario:")) {
        return; // a whole scenario's length is in the table; on the charts it would flatten the requests
      }
      List<Long> ok = new ArrayList<>();
      List<Double> median = new ArrayList<>();
      List<Double> latency = new ArrayList<>();
      List<Long> ko = new ArrayList<>();
      for (int i = 0; i < seconds.size(); i++) {
        SecondPoint p = i < points.size() ? points.get(i) : null;
        ok.add(p == null ? 0 : p.ok());
        median.add(p == null || p.ok() == 0 ? null : p.p50Us() / 1e3);
        latency.add(p == null || p.ok() == 0 ? null : p.p99Us() / 1e3);
        ko.add(p == null ? 0 : p.ko());
      }
      throughput.put(name, ok);
      p50.put(name, median);
      p99.put(name, latency);
      errors.put(name, ko);
    });
    data.put("throughput", throughput);
    data.put("p50", p50);
    data.put("p99", p99);
    data.put("errors", errors);
    return data;
  }

  private static final String CHART_SCRIPT = """
      const COLORS=['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#7f7f7f','#bcbd22','#17becf'];
      function chart(id, byName, unit){
        const names=Object.keys(byName);
        const series=[{label:'second'}].concat(names.map((n,i)=>({label:n,stroke:COLORS[i%COLORS.length],width:2,spanGaps:false})));
        const data=[DATA.seconds].concat(names.map(n=>byName[n]));
        new uPlot({width:Math.min(1100,window.innerWidth-60),height:280,series:series,
          axes:[{label:'seconds'},{label:unit}],scales:{x:{time:false}}}, data, document.getElementById(id));
      }
      chart('throughput', DATA.throughput, 'requests/s');
      chart('median', DATA.p50, 'ms');
      chart('latency', DATA.p99, 'ms');
      chart('errors', DATA.errors, 'errors/s');
      chart('users', {users: DATA.users}, 'active users');
      """;

  private static String resource(String path) {
    try (InputStream in = HtmlReport.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing " + path + " (the uplot WebJar)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
