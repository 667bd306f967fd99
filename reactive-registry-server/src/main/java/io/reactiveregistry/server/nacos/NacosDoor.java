package io.reactiveregistry.server.nacos;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.http.HandlerInItsOwnTask;
import io.reactiveregistry.server.http.SlowClients;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.ProtectedMode;
import io.reactiveregistry.server.tls.ReloadingSslContext;
import io.reactiveregistry.server.tls.TlsFiles;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The door for Nacos 2.x clients: Nacos's gRPC protocol on its own port (what {@code nacos-client}
 * uses: its server address's port + 1000) and Nacos's HTTP Open API on another (its server
 * address's port), both onto the request layer. An application moves here by pointing its
 * {@code serverAddr} at this server's Nacos HTTP port.
 */
public final class NacosDoor {
  /**
   * Where the door listens.
   *
   * @param httpPort Nacos's HTTP port (8848 by default; 0 picks a free one); -1: the door is off
   * @param grpcPort Nacos's gRPC port; Nacos's clients expect the HTTP port + 1000 (9848)
   */
  public record Settings(int httpPort, int grpcPort) {
    public static final Settings DEFAULTS = new Settings(8848, 9848);
    public static final Settings OFF = new Settings(-1, -1);

    public Settings {
      if (httpPort < -1 || httpPort > 65_535 || grpcPort < -1 || grpcPort > 65_535) {
        throw new IllegalArgumentException("the Nacos ports are from 0 (any free one) to 65535, or -1 (off): "
            + httpPort + ", " + grpcPort);
      }
      if ((httpPort == -1) != (grpcPort == -1)) {
        throw new IllegalArgumentException("the Nacos door is on with both its ports or off with neither: "
            + httpPort + ", " + grpcPort);
      }
    }

    /** The door on these ports; the gRPC one is Nacos's, the HTTP one + 1000, unless given. */
    public static Settings on(int httpPort) {
      return new Settings(httpPort, httpPort == 0 ? 0 : httpPort + 1000);
    }

    public boolean enabled() {
      return httpPort >= 0;
    }
  }

  private final NacosRequests requests;
  private final NacosGrpcServer grpc;
  private final DisposableServer http;

  private NacosDoor(NacosRequests requests, NacosGrpcServer grpc, DisposableServer http) {
    this.requests = requests;
    this.grpc = grpc;
    this.http = http;
  }

  /**
   * Opens the door's ports; blocking (it binds): call it off the event loops. Null when it is off.
   *
   * @param tlsFiles the server's TLS files, for the gRPC port; null without TLS
   * @param tls the same as the HTTP ports' context (reloaded when the files change); null without TLS
   */
  public static @Nullable NacosDoor open(Settings settings, String host, RequestLayer layer, Access access,
      ProtectedMode protectedMode, @Nullable TlsFiles tlsFiles, @Nullable ReloadingSslContext tls, int maxMessageBytes,
      ConnectionDoor.Limits connections, Duration idleTimeout, InstantSource clock, MeterRegistry meters) {
    if (!settings.enabled()) {
      return null;
    }
    NacosRequests requests = new NacosRequests(layer, access, clock, meters);
    NacosGrpcServer grpc = new NacosGrpcServer(requests, host, settings.grpcPort(), maxMessageBytes, tlsFiles, tls,
        protectedMode, connections, clock).start();
    Gauge.builder("registry.nacos.connections", grpc, NacosGrpcServer::openConnections)
        .description("Nacos clients' gRPC connections open").register(meters);
    NacosHttpApi api = new NacosHttpApi(layer, access, protectedMode, clock, maxMessageBytes);
    HttpServer server = HttpServer.create().host(host).port(settings.httpPort());
    try {
      DisposableServer http = SlowClients.bounded(tls == null ? server : server.secure(spec -> spec.sslContext(tls)),
              idleTimeout)
          .handle(HandlerInItsOwnTask.of(api::handle))
          .bindNow();
      return new NacosDoor(requests, grpc, http);
    } catch (RuntimeException e) {
      grpc.stop(Duration.ZERO);
      throw e;
    }
  }

  public int grpcPort() {
    return grpc.port();
  }

  public int httpPort() {
    return http.port();
  }

  public int openConnections() {
    return grpc.openConnections();
  }

  /**
   * The Nacos HTTP port a Nacos client is sent to when told to move here, or -1 when it could not
   * follow: a Nacos client reaches the gRPC port as the HTTP port + 1000, so only a door on ports
   * so related can take clients from other members.
   */
  public int movePort() {
    return grpcPort() == httpPort() + 1000 ? httpPort() : -1;
  }

  /**
   * How many of the door's periodic looks at its connections (quiet ones asked, unanswered ones
   * closed, moved ones' holdings released) have finished: tests wait for one to pass.
   */
  long looks() {
    return grpc.looks();
  }

  /** Set-up Nacos connections not yet told to move. */
  public int movableConnections() {
    return grpc.movableConnections();
  }

  /**
   * Tells up to {@code count} Nacos clients, the most recently connected first, to connect to the
   * member whose Nacos door is on {@code host} at HTTP port {@code port}: how many were told. What
   * each owns here stays until it has registered it there.
   */
  public int moveClients(int count, String host, int port) {
    int told = grpc.move(count, host, port);
    requests.told(told);
    return told;
  }

  /**
   * A member a stopping one may send its Nacos clients to: its host and Nacos HTTP port, and how
   * many Nacos clients it holds.
   */
  public record Destination(String host, int port, int clients) {}

  /**
   * Tells its clients to move, closes its ports and, after {@code grace}, its connections.
   * Blocking. Each client is told which of {@code destinations} to connect to: the one holding the
   * fewest Nacos clients, counting those sent there already, so that a stopping member's clients
   * spread over the others; with none (a single server), each goes to the next server of its own
   * list, wherever that points.
   */
  public void stop(Duration grace, List<Destination> destinations) {
    grpc.stop(grace, destinations);
    http.disposeNow(grace);
  }
}
