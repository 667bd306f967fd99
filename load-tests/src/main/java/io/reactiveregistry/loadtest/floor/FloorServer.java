package io.reactiveregistry.loadtest.floor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.reactiveregistry.loadtest.dsl.Steps;
import io.reactiveregistry.server.process.NettyDefaults;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.ByteBufPayload;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.tcp.TcpServer;

/**
 * The floor: the bare transports doing the registry's work without the registry, in a process of
 * their own, on the same Netty, Reactor Netty and RSocket, with the server process's Netty
 * settings ({@link NettyDefaults}). Measured with the same load kit and the same commands as the
 * registry, its CPU per request is what any server on these transports pays; the registry's
 * figures are reported as ratios to it (load-tests/RESULTS.md).
 *
 * <ul>
 *   <li><b>RSocket</b> ({@code --rsocket-port}): any request-response is answered with a
 *       registration's answer (the same bytes and size as the registry's {@code RegisterResult});
 *       fire-and-forget frames (heartbeats) are taken and dropped; a request-stream gets a
 *       snapshot-sized first event and is kept open; a request-response carrying the load kit's
 *       {@value Steps#SENT_AT} (the fan-out's publisher) also writes an UPSERT of the same shape
 *       and size as the registry's to every open stream, encoded once. What the registry does on
 *       top — decoding the JSON, the registry's rules, the view's bookkeeping — is what the floor
 *       leaves out.</li>
 *   <li><b>HTTP</b> ({@code --http-port}): Reactor Netty's HTTP server reading each request's whole
 *       body, answering {@code POST} 204 (Eureka's registration), other methods 200 with a small
 *       JSON body.</li>
 * </ul>
 *
 * {@code java -cp load-tests/target/load-tests.jar io.reactiveregistry.loadtest.floor.FloorServer
 * --rsocket-port 17170 --http-port 17180}
 */
@CommandLine.Command(name = "floor-server", mixinStandardHelpOptions = true,
    description = "The bare transports doing the registry's work without the registry (the floor).")
public final class FloorServer implements Callable<Integer> {
  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on. Default: ${DEFAULT-VALUE}")
  String host;

  @Option(names = "--rsocket-port", defaultValue = "17170", description = "RSocket over TCP; -1: off. "
      + "Default: ${DEFAULT-VALUE}")
  int rsocketPort;

  @Option(names = "--http-port", defaultValue = "17180", description = "HTTP; -1: off. Default: ${DEFAULT-VALUE}")
  int httpPort;

  /** A registration's answer, as the registry writes it (same fields, same length). */
  static final byte[] REGISTERED = ("{\"instanceId\":\"127.0.0.1#10000#DEFAULT\",\"revision\":1000000,"
      + "\"heartbeatIntervalMs\":5000,\"heartbeatTimeoutMs\":15000,\"deleteTimeoutMs\":30000}")
      .getBytes(StandardCharsets.UTF_8);
  /** A subscription's first event: an empty service's snapshot, as the registry writes it. */
  static final byte[] SNAPSHOT = ("{\"type\":\"SNAPSHOT\",\"revision\":1000000,\"namespace\":\"public\","
      + "\"group\":\"DEFAULT_GROUP\",\"service\":\"fanout\",\"ephemeral\":true,\"protectionTriggered\":false,"
      + "\"instances\":[],\"node\":\"floor\"}").getBytes(StandardCharsets.UTF_8);
  private static final ByteBuf SENT_AT = Unpooled.unreleasableBuffer(Unpooled.copiedBuffer(
      "\"" + Steps.SENT_AT + "\":\"", StandardCharsets.UTF_8));
  private static final byte[] HTTP_ANSWER = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

  private final Set<FluxSink<Payload>> streams = ConcurrentHashMap.newKeySet();
  private long revision = 1_000_000;

  public static void main(String[] args) {
    NettyDefaults.apply();
    System.exit(new CommandLine(new FloorServer()).execute(args));
  }

  @Override
  public Integer call() throws InterruptedException {
    Disposable running = start();
    System.out.println("floor: " + (rsocketPort >= 0 ? "RSocket on " + host + ":" + rsocketPort + " " : "")
        + (httpPort >= 0 ? "HTTP on " + host + ":" + httpPort : ""));
    try {
      new CountDownLatch(1).await(); // until the process is stopped
    } finally {
      running.dispose();
    }
    return 0;
  }

  /** Starts the configured transports in this JVM (a test's, say); disposing stops them. */
  public Disposable start() {
    Disposable.Composite running = Disposables.composite();
    if (rsocketPort >= 0) {
      CloseableChannel server = RSocketServer.create(SocketAcceptor.with(new Floor()))
          .payloadDecoder(PayloadDecoder.DEFAULT)
          .bind(TcpServerTransport.create(TcpServer.create().host(host).port(rsocketPort)))
          .block();
      rsocketPort = server.address().getPort();
      running.add(server);
    }
    if (httpPort >= 0) {
      DisposableServer http = HttpServer.create().host(host).port(httpPort)
          .handle((request, response) -> request.receive().aggregate().asByteArray().defaultIfEmpty(new byte[0])
              .flatMap(body -> request.method().equals(HttpMethod.POST)
                  ? response.status(HttpResponseStatus.NO_CONTENT).send().then()
                  : response.header("Content-Type", "application/json").sendByteArray(Mono.just(HTTP_ANSWER)).then()))
          .bindNow();
      httpPort = http.port();
      running.add(http);
    }
    return running;
  }

  /** A floor on free ports of {@code host} (0 for a free port, -1 for none). */
  public static FloorServer on(String host, int rsocketPort, int httpPort) {
    FloorServer floor = new FloorServer();
    floor.host = host;
    floor.rsocketPort = rsocketPort;
    floor.httpPort = httpPort;
    return floor;
  }

  /** The RSocket port, once started. */
  public int rsocketPort() {
    return rsocketPort;
  }

  /** The HTTP port, once started. */
  public int httpPort() {
    return httpPort;
  }

  /** The RSocket side: each interaction doing the least the registry's does. */
  private final class Floor implements RSocket {
    @Override
    public Mono<Payload> requestResponse(Payload payload) {
      try {
        int at = ByteBufUtil.indexOf(SENT_AT, payload.data());
        if (at >= 0) {
          int start = at + SENT_AT.readableBytes();
          int end = payload.data().indexOf(start, payload.data().writerIndex(), (byte) '"');
          broadcast(payload.data().toString(start, end - start, StandardCharsets.US_ASCII));
        }
      } finally {
        payload.release();
      }
      return Mono.just(ByteBufPayload.create(Unpooled.wrappedBuffer(REGISTERED)));
    }

    @Override
    public Mono<Void> fireAndForget(Payload payload) {
      payload.release();
      return Mono.empty();
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
      payload.release();
      return Flux.create(sink -> {
        sink.next(ByteBufPayload.create(Unpooled.wrappedBuffer(SNAPSHOT)));
        streams.add(sink);
        sink.onDispose(() -> streams.remove(sink));
      });
    }
  }

  /** One UPSERT, encoded once, to every open stream: what a change is to its subscribers. */
  private void broadcast(String sentAt) {
    long next;
    synchronized (this) {
      next = ++revision;
    }
    byte[] event = ("{\"type\":\"UPSERT\",\"revision\":" + next + ",\"instance\":{\"instanceId\":"
        + "\"127.0.0.1#9999#DEFAULT\",\"ip\":\"127.0.0.1\",\"port\":9999,\"cluster\":\"DEFAULT\",\"weight\":1.0,"
        + "\"enabled\":true,\"healthy\":true,\"ephemeral\":true,\"metadata\":{\"" + Steps.SENT_AT + "\":\"" + sentAt
        + "\"}}}").getBytes(StandardCharsets.UTF_8);
    // In direct memory, as the registry shares an event's bytes: the native transport writes a
    // direct buffer as it is, and copies a heap one for every stream.
    ByteBuf shared = Unpooled.directBuffer(event.length).writeBytes(event);
    for (FluxSink<Payload> stream : streams) {
      stream.next(ByteBufPayload.create(shared.retainedDuplicate()));
    }
    shared.release();
  }
}
