package io.reactiveregistry.server.http;

import java.time.Duration;
import reactor.netty.http.server.HttpServer;

/**
 * Bounds what an HTTP connection that is not sending a request may cost, on the HTTP port and on
 * the WebSocket port (whose upgrade request is HTTP): a connection that has not completed a
 * request within {@code timeout} — idle after a keep-alive answer, or dribbling its headers a
 * byte at a time — is closed, and so is one whose request body stalls for as long. Reactor
 * Netty's own idle and read timeouts do it (its idle timer runs until a request's headers are
 * complete, whatever arrives before); this class only puts them in one place.
 */
public final class SlowClients {
  private SlowClients() {}

  public static HttpServer bounded(HttpServer server, Duration timeout) {
    return server.idleTimeout(timeout).readTimeout(timeout);
  }
}
