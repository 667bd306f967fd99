package io.reactiveregistry.server.nacos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ClientCalls;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.TestCertificates;
import io.reactiveregistry.server.security.SecurityConfig;
import io.reactiveregistry.server.tls.TlsFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Nacos gRPC port's TLS comes from the server's files and follows them: a renewed certificate
 * is served without a restart, as on the other ports. (Nacos's own client over TLS is in
 * {@code interop/nacos}.)
 */
class NacosGrpcTlsTest {
  static final Duration WAIT = Duration.ofSeconds(15);

  @Test
  void aRenewedCertificateIsServedWithoutARestart(@TempDir Path dir) throws Exception {
    TestCertificates ca = TestCertificates.authority(dir, "test-ca");
    TestCertificates other = TestCertificates.authority(dir, "other-ca");
    Path[] first = ca.issue("registry", true);
    Path certificate = dir.resolve("server.pem");
    Path key = dir.resolve("server.key");
    Files.copy(first[0], certificate);
    Files.copy(first[1], key);
    RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
        .withSecurity(SecurityConfig.DEFAULTS.withTls(new TlsFiles(certificate, key, null)))
        .withNacos(new NacosDoor.Settings(0, 0))).block(WAIT);
    try {
      assertThat(serverCheck(server, ca.certificate())).isEqualTo("ServerCheckResponse");

      // Renewed by another CA, so that a client trusting only that one proves which is served.
      Path[] renewed = other.issue("registry", true);
      Files.copy(renewed[1], key, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(renewed[0], certificate, StandardCopyOption.REPLACE_EXISTING);
      await().atMost(WAIT).ignoreExceptions().until(() -> serverCheck(server, other.certificate())
          .equals("ServerCheckResponse"));
    } finally {
      server.disposeNow(WAIT);
    }
  }

  static String serverCheck(RegistryServer server, Path trusted) throws Exception {
    ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", server.nacosGrpcPort(),
        TlsChannelCredentials.newBuilder().trustManager(trusted.toFile()).build()).overrideAuthority("localhost")
        .build();
    try {
      return ClientCalls.blockingUnaryCall(channel, NacosGrpcServer.REQUEST,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
          new Payload("ServerCheckRequest", "", Map.of(), "{}".getBytes(StandardCharsets.UTF_8))).type();
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
