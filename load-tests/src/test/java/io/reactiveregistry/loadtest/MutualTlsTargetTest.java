package io.reactiveregistry.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.TestCertificates;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The load kit's command line against a server that asks every client for a certificate. */
class MutualTlsTargetTest {
  @TempDir
  Path dir;

  @Test
  void theKitPresentsItsCertificateToAServerRequiringOne() throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "kit-ca");
    Path[] server = ca.issue("server", true);
    Path[] client = ca.issue("load-kit", false);
    RegistryServer registry = RegistryServer.start(ServerConfig.ephemeralLoopback().withSecurity(
        SecurityConfig.DEFAULTS.withTls(new TlsFiles(server[0], server[1], ca.certificate()))))
        .block(Duration.ofSeconds(10));
    try {
      List<String> args = new ArrayList<>(List.of("RegistrationStorm", "--target",
          "tls://127.0.0.1:" + registry.tcpPort(), "--ca-file", ca.certificate().toString(),
          "--metrics-url", "https://127.0.0.1:" + registry.httpPort() + "/metrics",
          "--reports-dir", dir.resolve("reports").toString(), "--users", "2", "--instances", "20",
          "--concurrency", "4", "--max-duration-ms", "10000"));
      Run without = run(args);
      assertThat(without.exitCode()).as("no client certificate: refused, the run fails").isEqualTo(1);

      args.addAll(List.of("--cert-file", client[0].toString(), "--key-file", client[1].toString()));
      Run with = run(args);
      assertThat(with.exitCode()).as(with.output()).isZero();
      assertThat(with.output()).containsPattern("register\\s+40\\s+40\\s+0\\s");

      // Lean subscribers speak TLS too, and present the certificate.
      Run lean = run(List.of("SubscriptionFanOut", "--lean", "1", "--target", "tls://127.0.0.1:" + registry.tcpPort(),
          "--ca-file", ca.certificate().toString(), "--cert-file", client[0].toString(), "--key-file",
          client[1].toString(), "--metrics-url", "https://127.0.0.1:" + registry.httpPort() + "/metrics",
          "--reports-dir", dir.resolve("reports").toString(), "--subscribers", "5", "--updates", "3",
          "--interval-ms", "50"));
      assertThat(lean.exitCode()).as(lean.output()).isZero();
      assertThat(lean.output()).containsPattern("push\\s+15\\s+15\\s+0\\s");
    } finally {
      registry.disposeNow(Duration.ofSeconds(5));
    }
  }

  private record Run(int exitCode, String output) {}

  private static Run run(List<String> args) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream console = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      int exitCode = new CommandLine(new LoadTestMain()).execute(args.toArray(String[]::new));
      return new Run(exitCode, captured.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(console);
    }
  }
}
