package io.reactiveregistry.loadtest.engine;

import java.net.URI;

/**
 * The server under load: {@code tcp://127.0.0.1:7070}, and the bearer token each virtual user
 * presents in its SETUP (null for none). Only loopback targets are accepted.
 */
public record Target(String host, int port, String token) {

  public Target(String host, int port) {
    this(host, port, null);
  }

  public static Target parse(String uri) {
    URI parsed = URI.create(uri);
    if (!"tcp".equals(parsed.getScheme()) || parsed.getHost() == null || parsed.getPort() < 1) {
      throw new IllegalArgumentException("target must look like tcp://127.0.0.1:7070, got " + uri);
    }
    return new Target(parsed.getHost(), parsed.getPort());
  }

  /** The same server, each connection presenting {@code value} (null or empty: none). */
  public Target withToken(String value) {
    return new Target(host, port, value == null || value.isEmpty() ? null : value);
  }

  @Override
  public String toString() { // never the token
    return "tcp://" + host + ":" + port;
  }
}
