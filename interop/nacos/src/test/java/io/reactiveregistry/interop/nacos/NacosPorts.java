package io.reactiveregistry.interop.nacos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A free port P whose P + 1000 is free too: Nacos's clients are given P and reach gRPC at P + 1000,
 * so a test's server takes both.
 */
final class NacosPorts {
  private NacosPorts() {}

  static int freePair() {
    for (int attempt = 0; attempt < 50; attempt++) {
      try (ServerSocket http = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        int port = http.getLocalPort();
        if (port + 1000 > 65_535) {
          continue;
        }
        try (ServerSocket grpc = new ServerSocket(port + 1000, 1, InetAddress.getLoopbackAddress())) {
          return port;
        } catch (IOException taken) {
          // try another
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException("no free port P with P + 1000 free in 50 attempts");
  }
}
