package io.reactiveregistry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reactiveregistry.server.tls.TlsFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every setting, one row each: its built-in default is the one {@link ServerConfig#DEFAULTS}
 * holds, and a flag wins over the environment variable, which wins over the configuration file,
 * which wins over the default. The table must name every option the server has; the README and
 * {@code --help} must name every one too.
 */
class SettingsTableTest {
  @TempDir
  Path dir;

  /** A setting, three values (file, environment, flag) and where it lands in the configuration. */
  record Setting(String flag, String inFile, String inEnvironment, String onFlag, Function<ServerConfig, Object> read,
      Function<String, Object> expected, List<String> companions) {
    Setting(String flag, String inFile, String inEnvironment, String onFlag, Function<ServerConfig, Object> read,
        Function<String, Object> expected) {
      this(flag, inFile, inEnvironment, onFlag, read, expected, List.of());
    }

    /** The same, set together with the flags it needs ({@code --tls-key-file} with a certificate). */
    Setting with(String... flags) {
      return new Setting(flag, inFile, inEnvironment, onFlag, read, expected, List.of(flags));
    }

    @Override
    public String toString() {
      return flag;
    }
  }

  private static Setting setting(String flag, String a, String b, String c, Function<ServerConfig, Object> read,
      Function<String, Object> expected) {
    return new Setting(flag, a, b, c, read, expected);
  }

  private static Setting integer(String flag, String a, String b, String c, Function<ServerConfig, Object> read) {
    return setting(flag, a, b, c, read, Integer::valueOf);
  }

  private static Setting millis(String flag, String a, String b, String c, Function<ServerConfig, Object> read) {
    return setting(flag, a, b, c, read, value -> Duration.ofMillis(Long.parseLong(value)));
  }

  static Stream<Setting> settings() {
    return Stream.of(
        setting("--host", "127.0.0.2", "127.0.0.3", "127.0.0.4", ServerConfig::host, value -> value),
        integer("--port", "7100", "7200", "7300", ServerConfig::tcpPort),
        integer("--ws-port", "7101", "7201", "7301", ServerConfig::webSocketPort),
        integer("--http-port", "7102", "7202", "7302", ServerConfig::httpPort),
        integer("--max-payload-bytes", "2048", "4096", "8192", c -> c.limits().maxPayloadBytes()),
        integer("--max-instances-per-connection", "11", "12", "13", ServerConfig::maxInstancesPerConnection),
        integer("--max-subscriptions-per-connection", "21", "22", "23",
            c -> c.limits().maxSubscriptionsPerConnection()),
        integer("--max-outbound-backlog-bytes", "100000", "200000", "300000",
            c -> c.limits().maxOutboundBacklogBytes()),
        integer("--min-keepalive-interval-ms", "2000", "3000", "4000", c -> c.limits().minKeepAliveIntervalMs()),
        integer("--http-idle-timeout-ms", "31000", "32000", "33000", c -> c.limits().httpIdleTimeoutMs()),
        integer("--max-setup-bytes", "1000", "2000", "3000", c -> c.limits().maxSetupBytes()),
        integer("--setup-timeout-ms", "11000", "12000", "13000", c -> c.limits().setupTimeoutMs()),
        integer("--max-connections-per-port", "101", "102", "103", c -> c.limits().rsocketConnections().maxConnections()),
        integer("--max-connections-per-address", "11", "12", "13", c -> c.limits().rsocketConnections().maxPerAddress()),
        integer("--max-http-connections", "201", "202", "203", c -> c.limits().httpConnections().maxConnections()),
        integer("--max-http-connections-per-address", "21", "22", "23",
            c -> c.limits().httpConnections().maxPerAddress()),
        setting("--max-fragment-bytes-per-connection", "100001", "100002", "100003",
            c -> c.limits().fragments().perConnection(), Long::valueOf),
        setting("--max-fragment-bytes", "200001", "200002", "200003", c -> c.limits().fragments().total(),
            Long::valueOf),
        integer("--max-namespaces", "11", "12", "13", c -> c.quotas().maxNamespaces()),
        integer("--max-services", "21", "22", "23", c -> c.quotas().maxServices()),
        integer("--max-services-per-namespace", "31", "32", "33", c -> c.quotas().maxServicesPerNamespace()),
        integer("--max-persistent-instances", "41", "42", "43", c -> c.quotas().maxPersistentInstances()),
        integer("--max-persistent-instances-per-namespace", "51", "52", "53",
            c -> c.quotas().maxPersistentInstancesPerNamespace()),
        integer("--max-http-instances", "54", "55", "56", c -> c.quotas().maxHttpInstances()),
        setting("--eureka-namespace", "eu-1", "eu-2", "eu-3", c -> c.eureka().namespace(), value -> value),
        setting("--eureka-group", "G1", "G2", "G3", c -> c.eureka().group(), value -> value),
        integer("--nacos-port", "8801", "8802", "8803", c -> c.nacos().httpPort()),
        integer("--nacos-grpc-port", "9801", "9802", "9803", c -> c.nacos().grpcPort()),
        setting("--max-durable-metadata-bytes", "61", "62", "63", c -> c.quotas().maxDurableMetadataBytes(),
            Long::valueOf),
        setting("--max-durable-metadata-bytes-per-namespace", "71", "72", "73",
            c -> c.quotas().maxDurableMetadataBytesPerNamespace(), Long::valueOf),
        integer("--max-pending-events", "31", "32", "33", ServerConfig::maxPendingEvents),
        setting("--heartbeat-interval-ms", "4000", "3000", "2000", c -> c.heartbeat().intervalMs(), Long::valueOf),
        setting("--heartbeat-timeout-ms", "16000", "17000", "18000", c -> c.heartbeat().timeoutMs(), Long::valueOf),
        setting("--delete-timeout-ms", "31000", "32000", "33000", c -> c.heartbeat().deleteTimeoutMs(), Long::valueOf),
        millis("--empty-service-cleanup-ms", "61000", "62000", "63000", c -> c.lifecycle().emptyServiceCleanup()),
        millis("--override-retention-ms", "601000", "602000", "603000", c -> c.lifecycle().overrideRetention()),
        setting("--self-preservation", "false", "true", "false", c -> c.lifecycle().selfPreservation(),
            Boolean::valueOf),
        millis("--self-preservation-window-ms", "61000", "62000", "63000",
            c -> c.lifecycle().selfPreservationWindow()),
        setting("--self-preservation-threshold", "0.5", "0.6", "0.7",
            c -> c.lifecycle().selfPreservationThreshold(), Double::valueOf),
        millis("--health-check-interval-ms", "6000", "7000", "8000", c -> c.healthChecks().interval()),
        millis("--health-check-timeout-ms", "2100", "2200", "2300", c -> c.healthChecks().timeout()),
        integer("--health-check-concurrency", "65", "66", "67", c -> c.healthChecks().concurrency()),
        setting("--health-check-ca-file", "h1.pem", "h2.pem", "h3.pem", c -> c.healthChecks().caFile(), Path::of),
        setting("--data-dir", "d1", "d2", "d3", c -> c.storage().dataDir(), Path::of),
        setting("--restore-from", "b1.backup", "b2.backup", "b3.backup", c -> c.storage().restoreFrom(), Path::of),
        integer("--raft-port", "7191", "7192", "7193", c -> c.storage().raftPort()),
        setting("--node-id", "n1", "n2", "n3", c -> c.storage().cluster().nodeId(), value -> value)
            .with("--members", "n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290"),
        setting("--members", "a=127.0.0.1:7070/7090,b=127.0.0.1:7170/7190,c=127.0.0.1:7270/7290",
            "a=127.0.0.1:7070/7090,b=127.0.0.1:7171/7191,c=127.0.0.1:7271/7291",
            "a=127.0.0.1:7070/7090,b=127.0.0.1:7172/7192,c=127.0.0.1:7272/7292",
            c -> c.storage().cluster().toString(), value -> value).with("--node-id", "a"),
        setting("--join", "127.0.0.1:7170", "127.0.0.1:7270", "127.0.0.1:7370", c -> c.storage().join(),
            value -> value).with("--node-id", "n4", "--members", "n4=127.0.0.1:7470/7490"),
        setting("--raft-leader-warm-up", "false", "true", "false", c -> c.storage().leaderWarmUp(),
            Boolean::valueOf),
        setting("--snapshot-every", "101", "102", "103", c -> c.storage().snapshotEvery(), Long::valueOf),
        integer("--max-uncommitted-writes", "101", "102", "103", c -> c.storage().maxNotDurable()),
        millis("--expiry-tick-ms", "201", "202", "203", ServerConfig::expiryTick),
        integer("--expiry-budget", "11", "12", "13", ServerConfig::expiryBudget),
        integer("--resume-history-events", "501", "502", "503", c -> c.resumeHistory().eventsPerService()),
        millis("--resume-history-ms", "60001", "60002", "60003", c -> c.resumeHistory().maxAge()),
        integer("--resume-history-total", "5001", "5002", "5003", c -> c.resumeHistory().totalEvents()),
        millis("--coalesce-window-ms", "21", "22", "23", c -> c.coalescing().window()),
        integer("--coalesce-frames-per-second", "1001", "1002", "1003", c -> c.coalescing().framesPerSecond()),
        integer("--history-events", "1001", "1002", "1003", c -> c.history().maxEvents()),
        millis("--history-ms", "60001", "60002", "60003", c -> c.history().maxAge()),
        setting("--history-file", "a1.jsonl", "a2.jsonl", "a3.jsonl", c -> c.history().file(), Path::of),
        setting("--history-file-max-bytes", "2001", "2002", "2003", c -> c.history().fileMaxBytes(), Long::valueOf),
        integer("--history-file-keep", "1", "2", "3", c -> c.history().fileKeep()),
        setting("--otlp-endpoint", "http://127.0.0.1:4318/v1/traces", "http://127.0.0.2:4318/v1/traces",
            "http://127.0.0.3:4318/v1/traces", c -> c.tracing().endpoint(), java.net.URI::create),
        setting("--trace-sample-ratio", "0.2", "0.3", "0.4", c -> c.tracing().sampleRatio(), Double::valueOf),
        millis("--replication-grace-ms", "5100", "5200", "5300", c -> c.replication().grace()),
        millis("--anti-entropy-interval-ms", "2100", "2200", "2300", c -> c.replication().antiEntropy()),
        millis("--move-timeout-ms", "11000", "12000", "13000", c -> c.replication().moveTimeout()),
        integer("--rebalance-per-round", "51", "52", "53", c -> c.replication().rebalancePerRound()),
        setting("--zone", "z1", "z2", "z3", c -> c.replication().zone(), value -> value),
        setting("--rebalance-tolerance", "0.2", "0.3", "0.4", c -> c.replication().rebalanceTolerance(),
            Double::valueOf),
        setting("--allow-unauthenticated", "true", "false", "true", c -> c.security().allowUnauthenticated(),
            Boolean::valueOf),
        setting("--token-file", "t1.json", "t2.json", "t3.json", c -> c.security().tokenFile(), Path::of),
        setting("--jwt-keys-file", "k1.json", "k2.json", "k3.json", c -> c.security().jwtKeysFile(), Path::of),
        setting("--peer-token-file", "p1", "p2", "p3", c -> c.security().peerTokenFile(), Path::of),
        integer("--max-failed-authentications", "11", "12", "13", c -> c.security().maxFailedAuthentications()),
        millis("--failed-authentication-window-ms", "61000", "62000", "63000",
            c -> c.security().failedAuthenticationWindow()),
        setting("--tls-cert-file", "c1.pem", "c2.pem", "c3.pem", c -> tls(c, TlsFiles::certificate), Path::of)
            .with("--tls-key-file", "key.pem"),
        setting("--tls-key-file", "k1.pem", "k2.pem", "k3.pem", c -> tls(c, TlsFiles::key), Path::of)
            .with("--tls-cert-file", "cert.pem"),
        setting("--tls-client-ca-file", "a1.pem", "a2.pem", "a3.pem", c -> tls(c, TlsFiles::clientCa), Path::of)
            .with("--tls-cert-file", "cert.pem", "--tls-key-file", "key.pem"),
        setting("--in-memory", "true", "false", "true", c -> !c.storage().durable(), Boolean::valueOf));
  }

  private static Object tls(ServerConfig config, Function<TlsFiles, Path> file) {
    return config.security().tls() == null ? null : file.apply(config.security().tls());
  }

  private static String[] with(List<String> companions, String... args) {
    List<String> all = new ArrayList<>(companions);
    all.addAll(List.of(args));
    return all.toArray(String[]::new);
  }

  private ServerConfig parse(Map<String, String> environment, String... args) {
    CommandLine commandLine = Main.commandLine(args, environment);
    commandLine.parseArgs(args);
    return ((Main) commandLine.getCommand()).toConfig();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("settings")
  void aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault(Setting setting) throws Exception {
    String key = setting.flag().substring(2);
    String variable = ConfigSources.variable(setting.flag());
    Path file = dir.resolve("registry.properties");
    Files.writeString(file, key + "=" + setting.inFile() + "\n");

    assertThat(setting.read().apply(parse(Map.of()))).as("the built-in default is ServerConfig.DEFAULTS'")
        .isEqualTo(setting.read().apply(ServerConfig.DEFAULTS));
    List<String> companions = setting.companions();
    assertThat(setting.read().apply(parse(Map.of(), with(companions, "--config-file", file.toString()))))
        .isEqualTo(setting.expected().apply(setting.inFile()));
    assertThat(setting.read().apply(parse(Map.of(variable, setting.inEnvironment(),
        ConfigSources.FILE_VARIABLE, file.toString()), with(companions))))
        .isEqualTo(setting.expected().apply(setting.inEnvironment()));
    assertThat(setting.read().apply(parse(Map.of(variable, setting.inEnvironment()), with(companions, "--config-file",
        file.toString(), setting.flag(), setting.onFlag())))).isEqualTo(setting.expected().apply(setting.onFlag()));
  }

  @Test
  void withNoSettingTheServerStartsExactlyAsAnEmbeddedOneWouldAndHelpShowsThoseDefaults() {
    assertThat(parse(Map.of())).isEqualTo(ServerConfig.DEFAULTS);

    StringWriter help = new StringWriter();
    CommandLine commandLine = Main.commandLine(new String[] {"--help"}, Map.of());
    commandLine.setOut(new PrintWriter(help));
    commandLine.execute("--help");
    assertThat(help.toString()).contains("Default: 7070").contains("Default: 0.85").contains("Default: data");
  }

  @Test
  void theReadmeGivesEachSettingItsBuiltInDefault() throws Exception {
    Matcher row = Pattern.compile("(?m)^\\| `(--[a-z-]+)` \\| `REGISTRY_[A-Z_]+` \\| `([^`]*)` \\|")
        .matcher(Files.readString(Path.of("../README.md")));
    Map<String, String> documented = new HashMap<>();
    while (row.find()) {
      documented.put(row.group(1), row.group(2));
    }
    assertThat(documented).isEqualTo(SettingDefaults.byFlag());
  }

  @Test
  void aSettingThatBreaksItsRuleIsRefusedNamingTheRule() {
    assertThatThrownBy(() -> parse(Map.of(), "--expiry-budget", "0"))
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("expiry budget must be at least 1");
    assertThatThrownBy(() -> parse(Map.of(), "--self-preservation-threshold", "1.5"))
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("from 0 to 1");
    assertThatThrownBy(() -> parse(Map.of(), "--trace-sample-ratio", "2"))
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> parse(Map.of(), "--otlp-endpoint", "grpc://127.0.0.1:4317"))
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("http:// or https://");
    assertThatThrownBy(() -> parse(Map.of(), "--port", "70000"))
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("65535");
    assertThatThrownBy(() -> parse(Map.of(), "--max-payload-bytes", "0"))
        .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("at least 1");
  }

  private static Set<String> options() {
    return new CommandLine(new Main()).getCommandSpec().options().stream().map(OptionSpec::longestName)
        .filter(name -> !List.of("--help", "--version", "--config-file").contains(name))
        .collect(Collectors.toSet());
  }

  @Test
  void theTableHasEveryOptionAndTheReadmeAndHelpNameEachWithItsVariable() throws Exception {
    assertThat(settings().map(Setting::flag).collect(Collectors.toSet())).isEqualTo(options());

    StringWriter help = new StringWriter();
    CommandLine commandLine = Main.commandLine(new String[] {"--help"}, Map.of());
    commandLine.setOut(new PrintWriter(help));
    assertThat(commandLine.execute("--help")).isZero();
    String readme = Files.readString(Path.of("../README.md"));
    for (String option : options()) {
      assertThat(help.toString()).as("--help").contains(option);
      assertThat(readme).as("README").contains("`" + option + "`").contains("`" + ConfigSources.variable(option) + "`");
    }
  }
}
