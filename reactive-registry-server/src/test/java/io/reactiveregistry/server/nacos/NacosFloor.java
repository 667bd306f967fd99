package io.reactiveregistry.server.nacos;

import io.grpc.stub.ServerCallStreamObserver;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.security.ProtectedMode;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import reactor.core.publisher.Mono;

/**
 * The Nacos door's floor: its gRPC port exactly as the server opens it (the same {@link
 * NacosGrpcServer}: gRPC's Netty server with the door's settings, its connection tracking and
 * limits, the same {@link Payload} codec), answering the calls a registering Nacos client makes
 * with answers of the door's shape and size, built once, and nothing behind them: no JSON read, no
 * request layer, no registry. What the door costs above this is the registry's work; what this
 * costs is gRPC's.
 *
 * <pre>java -cp &lt;the server's test classpath&gt; io.reactiveregistry.server.nacos.NacosFloor &lt;port&gt;</pre>
 *
 * <p>Listens on {@code port + 1000}, where a Nacos client given {@code 127.0.0.1:port} looks for
 * its gRPC port. Used by {@code load-tests/bench/nacos-side-by-side.sh}.
 */
public final class NacosFloor implements NacosCalls {
  /** A client's request ids are its counter's decimal digits: an answer carries one of that size. */
  private static final String REQUEST_ID = "1000";
  private static final Payload HEALTH = NacosJson.ok("HealthCheckResponse", REQUEST_ID);
  private static final Payload INSTANCE = NacosJson.ok("InstanceResponse", REQUEST_ID,
      Map.of("type", "registerInstance"));
  private static final Payload SETUP_ACK = NacosJson.serverRequest("SetupAckRequest", "1",
      Map.of("abilityTable", Map.of("supportPersistentInstanceByGrpc", true), "module", "internal"));
  private static final Payload NOT_SERVED = NacosJson.error(NacosJson.NO_HANDLER,
      "the floor answers only a registering client's calls");

  @Override
  public Mono<Payload> request(NacosConnection connection, Payload request) {
    return Mono.just(switch (request.type()) {
      case "InstanceRequest" -> INSTANCE;
      case "HealthCheckRequest" -> HEALTH;
      // Once per connection: built as the door builds it, with the connection's id.
      case "ServerCheckRequest" -> NacosJson.ok("ServerCheckResponse", null,
          Map.of("connectionId", connection.id, "supportAbilityNegotiation", true));
      default -> NOT_SERVED;
    });
  }

  @Override
  public void streamed(NacosConnection connection, Payload payload, ServerCallStreamObserver<Payload> out) {
    if ("ConnectionSetupRequest".equals(payload.type())) {
      out.onNext(SETUP_ACK); // the client waits for it before it counts itself connected
    }
  }

  @Override
  public void closed(NacosConnection connection) {
    // nothing is owned
  }

  @Override
  public void tick(Collection<NacosConnection> connections) {
    // a bench's connections are never quiet for long, and own nothing
  }

  /** Opens the floor's gRPC port on {@code port + 1000}; closing it closes the port. Blocking. */
  public static AutoCloseable listen(int port) {
    ServerConfig defaults = ServerConfig.DEFAULTS;
    NacosGrpcServer server = new NacosGrpcServer(new NacosFloor(), "127.0.0.1", port + 1000,
        defaults.limits().maxPayloadBytes(), null, null, new ProtectedMode(defaults.security()),
        defaults.limits().rsocketConnections(), InstantSource.system()).start();
    return () -> server.stop(Duration.ZERO);
  }

  public static void main(String[] args) throws InterruptedException {
    listen(Integer.parseInt(args[0]));
    System.out.println("the Nacos floor listens on 127.0.0.1:" + (Integer.parseInt(args[0]) + 1000));
    new CountDownLatch(1).await(); // until the bench ends the process
  }
}
