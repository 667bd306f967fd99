package io.reactiveregistry.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The operator's dashboard: a handful of static files from the server's jar, read once at start
 * (never from disk on an event loop), served at {@code /} and {@code /dashboard/*}. The page itself
 * reads the registry through the HTTP API ({@code POST /api/v1/<route>}) and stays live through its
 * server-sent event streams, with the operator's token, if any, on every request.
 */
public final class Dashboard {
  /**
   * The page loads only its own files and talks only to this server; Alpine.js evaluates its
   * attribute expressions with {@code Function}, hence {@code 'unsafe-eval'} and nothing else.
   */
  static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self' 'unsafe-eval'; "
      + "style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
      + "form-action 'none'";

  private record Asset(byte[] bytes, String contentType) {}

  private final Map<String, Asset> assets;

  private Dashboard(Map<String, Asset> assets) {
    this.assets = assets;
  }

  /** Reads the dashboard's files from the classpath; fails at start, not at the first visit, when one is missing. */
  public static Dashboard load() {
    String alpine = "META-INF/resources/webjars/alpinejs/" + property("alpinejs") + "/dist/cdn.min.js";
    return new Dashboard(Map.of(
        "index.html", new Asset(read("dashboard/index.html"), "text/html; charset=utf-8"),
        "dashboard.js", new Asset(read("dashboard/dashboard.js"), "text/javascript; charset=utf-8"),
        "dashboard.css", new Asset(read("dashboard/dashboard.css"), "text/css; charset=utf-8"),
        "alpine.min.js", new Asset(read(alpine), "text/javascript; charset=utf-8")));
  }

  /** {@code GET /}: the page. */
  Publisher<Void> page(HttpServerResponse response) {
    return send(response, assets.get("index.html"));
  }

  /** {@code GET /dashboard/{file}}: one of its files; null when there is no such file. */
  @Nullable Publisher<Void> file(String name, HttpServerResponse response) {
    Asset asset = assets.get(name);
    return asset == null ? null : send(response, asset);
  }

  private static Publisher<Void> send(HttpServerResponse response, Asset asset) {
    return response.status(HttpResponseStatus.OK)
        .header(HttpHeaderNames.CONTENT_TYPE, asset.contentType())
        // Small files, and a new server version may change them: revalidate rather than keep stale ones.
        .header(HttpHeaderNames.CACHE_CONTROL, "no-cache")
        .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .sendByteArray(Mono.just(asset.bytes()))
        .then();
  }

  private static String property(String name) {
    Properties properties = new Properties();
    try (InputStream in = open("dashboard/dashboard.properties")) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties.getProperty(name);
  }

  private static byte[] read(String resource) {
    try (InputStream in = open(resource)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream open(String resource) throws IOException {
    InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(resource);
    if (in == null) {
      throw new IOException("the dashboard's " + resource + " is missing from the server's jar");
    }
    return in;
  }
}
