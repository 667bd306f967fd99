package io.reactiveregistry.loadtest.engine;

import java.net.URI;

/** The server under load: {@code tcp://127.0.0.1:7070}. Only loopback targets are accepted. */
public record Target(String host, int port) {

  public static Target parse(String uri) {
    URI parsed = URI.create(uri);
    if (!"tcp".equals(parsed.getScheme()) || parsed.getHost() == null || parsed.getPort() < 1) {
      throw new IllegalArgumentException("target must look like tcp://127.0.0.1:7070, got " + uri);
    }
    return new Target(parsed.getHost(), parsed.getPort());
  }

  @Override
  public String toString() {
    return "tcp://" + host + ":" + port;
  }
}
