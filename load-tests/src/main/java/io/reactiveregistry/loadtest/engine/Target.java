package io.reactiveregistry.loadtest.engine;

import io.netty.handler.ssl.SslContext;
import io.reactiveregistry.client.ClientTls;
import io.reactiveregistry.client.ClientTransports;
import io.rsocket.transport.ClientTransport;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The server (or the cluster's members) under load: {@code tcp://127.0.0.1:7070}, or several
 * addresses separated by commas, over which virtual users are spread in turn (user {@code i}
 * connects to address {@code i mod n}); and the bearer token each virtual user presents in its
 * SETUP (null for none). Only loopback targets are accepted.
 */
public record Target(List<Endpoint> endpoints, String token, SslContext tls) {

  /** One address of the target. */
  public record Endpoint(String host, int port) {}

  public Target {
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("a target needs at least one address");
    }
    endpoints = List.copyOf(endpoints);
  }

  public Target(String host, int port) {
    this(List.of(new Endpoint(host, port)), null, null);
  }

  /**
   * {@code tcp://host:port}, or {@code tls://host:port} (then TLS trusting the JVM's CAs until
   * {@link #withTls}); several, comma-separated, of the same scheme.
   */
  public static Target parse(String uris) {
    List<Endpoint> endpoints = new ArrayList<>();
    Boolean secure = null;
    for (String uri : uris.split(",")) {
      URI parsed = URI.create(uri.strip());
      boolean tls = "tls".equals(parsed.getScheme());
      if (!(tls || "tcp".equals(parsed.getScheme())) || parsed.getHost() == null || parsed.getPort() < 1) {
        throw new IllegalArgumentException("target must look like tcp://127.0.0.1:7070 or tls://127.0.0.1:7070 "
            + "(several separated by commas), got " + uri);
      }
      if (secure != null && secure != tls) {
        throw new IllegalArgumentException("the addresses of one target are all tcp:// or all tls://: " + uris);
      }
      secure = tls;
      endpoints.add(new Endpoint(parsed.getHost(), parsed.getPort()));
    }
    return new Target(endpoints, null, secure ? ClientTls.trusting(null).sslContext() : null);
  }

  /** The first address's host: where the server's metrics are looked for by default. */
  public String host() {
    return endpoints.get(0).host();
  }

  /** The same server, each connection presenting {@code value} (null or empty: none). */
  public Target withToken(String value) {
    return new Target(endpoints, value == null || value.isEmpty() ? null : value, tls);
  }

  /**
   * The same TLS server, with {@code settings} (the CA certificates trusted, the certificate
   * presented to a server requiring client certificates); no change for a tcp:// target.
   */
  public Target withTls(ClientTls settings) {
    return tls == null ? this : new Target(endpoints, token, settings.sslContext());
  }

  /** The RSocket transport for virtual user {@code userId}: the addresses in turn. */
  public ClientTransport transport(int userId) {
    return transportTo(Math.floorMod(userId, endpoints.size()));
  }

  /** The address for virtual user {@code userId}: the addresses in turn, as {@link #transport}. */
  public Endpoint endpoint(int userId) {
    return endpoints.get(Math.floorMod(userId, endpoints.size()));
  }

  /** The index of the address for virtual user {@code userId} among those other than {@code member}, in turn. */
  public int avoiding(int member, int userId) {
    if (endpoints.size() < 2) {
      throw new IllegalArgumentException("users kept off member " + member + " need a second address in --target");
    }
    return (member + 1 + Math.floorMod(userId, endpoints.size() - 1)) % endpoints.size();
  }

  /** The RSocket transport to the address at {@code index} in the list. */
  public ClientTransport transportTo(int index) {
    Endpoint endpoint = endpoints.get(index);
    return tls == null ? ClientTransports.tcp(endpoint.host(), endpoint.port())
        : ClientTransports.tls(endpoint.host(), endpoint.port(), tls);
  }

  @Override
  public String toString() { // never the token
    String scheme = tls == null ? "tcp://" : "tls://";
    return endpoints.stream().map(e -> scheme + e.host() + ":" + e.port()).collect(Collectors.joining(","));
  }
}
