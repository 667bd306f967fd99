package io.reactiveregistry.server.tls;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The PEM files of the server's TLS.
 *
 * @param certificate the server's certificate chain
 * @param key its private key, PKCS#8 ({@code -----BEGIN PRIVATE KEY-----})
 * @param clientCa when given, every client must present a certificate signed by this CA
 */
public record TlsFiles(Path certificate, Path key, @Nullable Path clientCa) {
  public TlsFiles {
    if (certificate == null || key == null) {
      throw new IllegalArgumentException("TLS needs both a certificate file (--tls-cert-file) and its key "
          + "(--tls-key-file)");
    }
  }

  /** The files the flags name; null when TLS is off (neither a certificate, a key nor a client CA). */
  public static @Nullable TlsFiles of(@Nullable Path certificate, @Nullable Path key, @Nullable Path clientCa) {
    if (certificate == null && key == null) {
      if (clientCa != null) {
        throw new IllegalArgumentException("--tls-client-ca-file needs TLS: give --tls-cert-file and --tls-key-file");
      }
      return null;
    }
    return new TlsFiles(certificate, key, clientCa);
  }
}
