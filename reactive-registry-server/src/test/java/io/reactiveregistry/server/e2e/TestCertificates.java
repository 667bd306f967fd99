package io.reactiveregistry.server.e2e;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A certificate authority of the test's own, made with openssl in a directory: certificates for a
 * server (naming 127.0.0.1) and for clients, each an EC P-256 key in PKCS#8 PEM.
 */
public final class TestCertificates {
  private final Path dir;
  private final String name;

  private TestCertificates(Path dir, String name) {
    this.dir = dir;
    this.name = name;
  }

  /** A new CA called {@code name}, its files in {@code dir}. */
  public static TestCertificates authority(Path dir, String name) throws Exception {
    TestCertificates ca = new TestCertificates(dir, name);
    openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-noenc",
        "-keyout", name + ".key", "-out", name + ".pem", "-days", "2", "-subj", "/CN=" + name);
    return ca;
  }

  /** The CA's certificate, PEM: what a peer trusts. */
  public Path certificate() {
    return dir.resolve(name + ".pem");
  }

  /** A certificate for {@code subject} signed by this CA: {@code [certificate, key]}; a server's names 127.0.0.1. */
  public Path[] issue(String subject, boolean server) throws Exception {
    String file = name + "-" + subject;
    openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-noenc", "-keyout", file + ".key",
        "-out", file + ".csr", "-subj", "/CN=" + subject);
    List<String> sign = new ArrayList<>(List.of("x509", "-req", "-in", file + ".csr", "-CA", name + ".pem",
        "-CAkey", name + ".key", "-CAcreateserial", "-days", "2", "-out", file + ".pem"));
    if (server) {
      Files.writeString(dir.resolve(file + ".ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
      sign.addAll(List.of("-extfile", file + ".ext"));
    }
    openssl(dir, sign.toArray(String[]::new));
    return new Path[] {dir.resolve(file + ".pem"), dir.resolve(file + ".key")};
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IllegalStateException("openssl " + String.join(" ", args) + " failed: " + output);
    }
  }

  /** A client's TLS context trusting {@code caCertificate}, presenting {@code certificate} (key, chain) when not null. */
  public static SslContext trusting(Path caCertificate, Path[] certificate) throws Exception {
    SslContextBuilder builder = SslContextBuilder.forClient().trustManager(caCertificate.toFile());
    if (certificate != null) {
      builder.keyManager(certificate[0].toFile(), certificate[1].toFile());
    }
    return builder.build();
  }
}
