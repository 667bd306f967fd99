package io.reactiveregistry.server.lifecycle;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.SSLException;
import reactor.netty.http.client.PrematureCloseException;

/**
 * A failed health check's error in the words an operator reads on the dashboard and in the audit
 * trail: "connection refused", "no connection within 2000 ms", "TLS: certificate not trusted
 * (...)", rather than an exception's class name.
 */
final class HealthFailures {
  /** A reason longer than this is cut: a TLS stack's message can run to hundreds of characters. */
  private static final int MAX_REASON = 200;

  private HealthFailures() {}

  static String describe(Throwable error, Duration limit) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof SSLException tls) {
        return cut("TLS: " + tls(deepest(tls)));
      }
    }
    Throwable cause = error;
    if (cause instanceof ConnectTimeoutException) {
      return "no connection within " + limit.toMillis() + " ms";
    }
    if (cause instanceof ConnectException connect) {
      String message = connect.getMessage() == null ? "" : connect.getMessage().toLowerCase(Locale.ROOT);
      return message.contains("refused") ? "connection refused" : cut("cannot connect: " + connect.getMessage());
    }
    if (cause instanceof NoRouteToHostException) {
      return "no route to host";
    }
    if (cause instanceof UnknownHostException) {
      return "unknown host";
    }
    if (cause instanceof PrematureCloseException) {
      return "closed the connection before answering";
    }
    return cut(cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
  }

  private static Throwable deepest(Throwable error) {
    Throwable deepest = error;
    while (deepest.getCause() != null && deepest.getCause() != deepest) {
      deepest = deepest.getCause();
    }
    return deepest;
  }

  /** The TLS failures a registry's operator meets, named; any other by its own message. */
  private static String tls(Throwable root) {
    String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    String lower = message.toLowerCase(Locale.ROOT);
    if (lower.contains("unable to find valid certification path") || lower.contains("pkix path")) {
      return "certificate not trusted (it does not chain to --health-check-ca-file or the JVM's CAs)";
    }
    if (lower.contains("subject alternative name") || lower.contains("no name matching")) {
      return "certificate does not name the registered address (" + message + ")";
    }
    if (lower.contains("expired") || lower.contains("notafter")) {
      return "certificate expired (" + message + ")";
    }
    return message;
  }

  private static String cut(String reason) {
    return reason.length() <= MAX_REASON ? reason : reason.substring(0, MAX_REASON - 1) + "…";
  }
}
