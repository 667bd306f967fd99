package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.nacos.NacosDoor;
import io.reactiveregistry.server.storage.StorageConfig;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ready-made views in ops/: the alert rules pass promtool (their syntax, and the cases of
 * alerts-test.yml: each fires on what should raise it), and every metric the rules and the Grafana
 * dashboard query is one a server exports.
 */
class OpsArtifactsTest {
  private static final Path OPS = Path.of("../ops");
  private static final String PROMTOOL = "/usr/bin/promtool";
  /** A metric name in a PromQL expression (label names and functions are not of these forms). */
  private static final Pattern METRIC = Pattern.compile("\\b((?:registry|jvm|process|netty|system)_[a-z_]+)\\b");

  @TempDir
  Path data;

  @Test
  void theAlertRulesPassPromtoolsChecksAndTheirTests() throws Exception {
    Prerequisites.require(new File(PROMTOOL).canExecute(),
        "no promtool here (" + PROMTOOL + "): .ci/run installs Debian's prometheus, which has it");
    assertThat(promtool("check", "rules", "alerts.yml")).contains("SUCCESS: 8 rules found");
    assertThat(promtool("test", "rules", "alerts-test.yml")).contains("SUCCESS");
  }

  @Test
  void everyMetricTheRulesAndTheDashboardQueryIsExported() throws Exception {
    Set<String> queried = new TreeSet<>();
    for (String expr : alertExpressions()) {
      queried.addAll(metrics(expr));
    }
    int rules = queried.size();
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(OPS.resolve("grafana/reactive-registry.json")));
    assertThat(dashboard.get("panels")).hasSizeGreaterThanOrEqualTo(12);
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(panel.get("targets")).as(panel.get("title").asText()).isNotEmpty();
      for (JsonNode target : panel.get("targets")) {
        queried.addAll(metrics(target.get("expr").asText()));
      }
    }
    assertThat(rules).isGreaterThanOrEqualTo(6);
    assertThat(queried).hasSizeGreaterThan(rules);

    // A server with a data directory: a one-member Raft group, so its cluster and storage meters exist.
    String scrape;
    try (ServerFixture fixture = new ServerFixture(ServerConfig.ephemeralLoopback()
        .withStorage(StorageConfig.onDisk(data)).withNacos(NacosDoor.Settings.OFF))) {
      fixture.connect("app").call("instance.register", Registrations.registration("orders", "127.0.0.5", 8080));
      scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + fixture.server().httpPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
    for (String metric : queried) {
      assertThat(scrape).as("%s, queried in ops/, is exported", metric)
          .containsPattern("(?m)^" + Pattern.quote(metric) + "[{ ]");
    }
  }

  /** The expr of every rule in alerts.yml (one line each, as the file writes them). */
  private static List<String> alertExpressions() throws Exception {
    List<String> exprs = new ArrayList<>();
    for (String line : Files.readAllLines(OPS.resolve("prometheus/alerts.yml"))) {
      if (line.strip().startsWith("expr:")) {
        exprs.add(line.strip().substring("expr:".length()).strip());
      }
    }
    assertThat(exprs).hasSize(8);
    return exprs;
  }

  private static Set<String> metrics(String expr) {
    Set<String> names = new TreeSet<>();
    Matcher name = METRIC.matcher(expr);
    while (name.find()) {
      names.add(name.group(1));
    }
    return names;
  }

  private static String promtool(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(PROMTOOL));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(OPS.resolve("prometheus").toFile())
        .redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + "\n" + output).isZero();
    return output;
  }
}
