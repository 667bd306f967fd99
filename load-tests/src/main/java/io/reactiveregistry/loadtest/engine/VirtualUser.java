package io.reactiveregistry.loadtest.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.loadtest.metrics.Metrics;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One simulated client: one RSocket connection, the instances it registered, and its own loopback
 * address (127.x.y.z, unique per user) for those instances.
 */
public final class VirtualUser {
  private final int id;
  private final Target target;
  private final Metrics metrics;
  private final Map<String, Long> closeMarks;
  private final PushWindow pushWindow;
  private final List<Registered> registered = new ArrayList<>();
  private volatile RSocket rsocket;
  /** What the user's steps remember between them: fed records, the last revision a check saw. */
  private final Map<String, Object> session = new ConcurrentHashMap<>();

  /** An instance this user registered. */
  public record Registered(String service, int port, String instanceId) {}

  VirtualUser(int id, Target target, Metrics metrics, Map<String, Long> closeMarks, PushWindow pushWindow) {
    this.id = id;
    this.pushWindow = pushWindow;
    this.target = target;
    this.metrics = metrics;
    this.closeMarks = closeMarks;
  }

  public int id() {
    return id;
  }

  public Metrics metrics() {
    return metrics;
  }

  /** The run's window of timed pushes, shared by its users. */
  public PushWindow pushWindow() {
    return pushWindow;
  }

  /** Loopback address of this user's instances: unique per user, always in 127.0.0.0/8. */
  public String ip() {
    return "127." + ((id / 62_500) % 250 + 1) + "." + ((id / 250) % 250) + "." + (id % 250 + 1);
  }

  public List<Registered> registered() {
    return registered;
  }

  public synchronized void remember(Registered instance) {
    registered.add(instance);
  }

  /** When each instance's connection was closed abruptly, for close-to-REMOVE latency. */
  public Map<String, Long> closeMarks() {
    return closeMarks;
  }

  private Payload setup() {
    String data = "{\"client\":\"load-user-" + id + "\"}";
    return target.token() == null ? DefaultPayload.create(data) : ByteBufPayload.create(
        Unpooled.copiedBuffer(data, java.nio.charset.StandardCharsets.UTF_8),
        BearerMetadata.composite(ByteBufAllocator.DEFAULT, target.token()));
  }

  public Mono<Void> connect() {
    return connect(target.transport(id));
  }

  /**
   * Connects to the address at {@code member} in the target's list, or, with {@code avoid}, to the
   * others in turn: a cluster benchmark that puts a publisher on one member and its subscribers on
   * the rest.
   */
  public Mono<Void> connectToMember(int member, boolean avoid) {
    int members = target.endpoints().size();
    if (member < 0 || member >= members) {
      throw new IllegalArgumentException("member " + member + " is not in the target's list of " + members);
    }
    if (!avoid) {
      return connect(target.transportTo(member));
    }
    return connect(target.transportTo(target.avoiding(member, id)));
  }

  private Mono<Void> connect(io.rsocket.transport.ClientTransport transport) {
    long start = System.nanoTime();
    return RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(setup())
        .connect(transport)
        .doOnNext(socket -> {
          rsocket = socket;
          metrics.recordOk("connect", start);
        })
        .doOnError(e -> metrics.recordKo("connect", start))
        .then();
  }

  /** A request-response, recorded under {@code name} from {@code intendedStart}. */
  public Mono<String> request(String name, String route, String json, long intendedStart) {
    return request(name, route, json, intendedStart, answer -> null);
  }

  /**
   * As above; {@code check} looks at the answer and returns why it is wrong, or null: a wrong
   * answer is a failed request, with that reason in the errors table.
   */
  public Mono<String> request(String name, String route, String json, long intendedStart,
      Function<String, String> check) {
    return Mono.defer(() -> requireConnected().requestResponse(payload(route, json)))
        .map(VirtualUser::text)
        .flatMap(answer -> {
          String wrong = check.apply(answer);
          return wrong == null ? Mono.just(answer) : Mono.error(new CheckFailed(wrong));
        })
        .doOnNext(answer -> metrics.record(name, intendedStart, System.nanoTime(), true))
        .doOnError(e -> failed(name, intendedStart, e));
  }

  /** A response check that did not hold. */
  public static final class CheckFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CheckFailed(String message) {
      super(message, null, false, false);
    }
  }

  private void failed(String name, long start, Throwable error) {
    metrics.record(name, start, System.nanoTime(), false);
    metrics.recordError(name, error instanceof CheckFailed ? "check: " + error.getMessage()
        : error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage());
  }

  /** The user's session: what its steps keep between them. */
  public Map<String, Object> session() {
    return session;
  }

  /**
   * A request-response whose answer is not needed, only its success: the answer is released
   * without being decoded, so the generator spends its CPU on load rather than on parsing.
   */
  public Mono<Void> send(String name, String route, String json) {
    return Mono.defer(() -> send(name, route, json, System.nanoTime()));
  }

  /** As {@link #send(String, String, String)}, timed from {@code start}, its intended start in open models. */
  public Mono<Void> send(String name, String route, String json, long start) {
    return Mono.defer(() -> {
      return requireConnected().requestResponse(payload(route, json))
          .doOnNext(answer -> {
            answer.release();
            metrics.record(name, start, System.nanoTime(), true);
          })
          .doOnError(e -> failed(name, start, e))
          .then();
    });
  }

  public Mono<String> request(String name, String route, String json) {
    return Mono.defer(() -> request(name, route, json, System.nanoTime()));
  }

  public Mono<Void> fire(String route, String json) {
    return Mono.defer(() -> requireConnected().fireAndForget(payload(route, json)));
  }

  /**
   * A stream on a connection of its own, read frame by frame ({@link LeanStream}): for a user
   * that only subscribes and counts, without the RSocket client (no {@code connect()} needed).
   */
  public Mono<Void> leanStream(String route, String json, Duration hold, LeanStream.Listener listener) {
    return Mono.defer(() -> LeanStream.hold(target.endpoint(id), target.tls(), setup(), route, json, hold, listener));
  }

  public Flux<String> stream(String route, String json) {
    return Flux.defer(() -> requireConnected().requestStream(payload(route, json))).map(VirtualUser::text);
  }

  /** Closes the connection without deregistering anything, as a crashed client would. */
  public void closeAbruptly() {
    RSocket socket = rsocket;
    if (socket != null) {
      long now = System.nanoTime();
      synchronized (this) {
        for (Registered instance : registered) {
          closeMarks.put(instance.service() + "/" + instance.instanceId(), now);
        }
      }
      socket.dispose();
    }
  }

  public boolean connected() {
    RSocket socket = rsocket;
    return socket != null && !socket.isDisposed();
  }

  void dispose() {
    RSocket socket = rsocket;
    if (socket != null) {
      socket.dispose();
    }
  }

  private RSocket requireConnected() {
    RSocket socket = rsocket;
    if (socket == null) {
      throw new IllegalStateException("user " + id + " is not connected; start its scenario with connect()");
    }
    return socket;
  }

  /** Route metadata is the same for every request of a route: encoded once, shared read-only. */
  private static final Map<String, ByteBuf> ROUTES = new ConcurrentHashMap<>();

  private static Payload payload(String route, String json) {
    ByteBuf metadata = ROUTES.computeIfAbsent(route,
        r -> Unpooled.unreleasableBuffer(Unpooled.copiedBuffer(RouteMetadata.encode(ByteBufAllocator.DEFAULT, r))));
    return ByteBufPayload.create(ByteBufUtil.writeUtf8(ByteBufAllocator.DEFAULT, json), metadata.duplicate());
  }

  private static String text(Payload payload) {
    try {
      return payload.getDataUtf8();
    } finally {
      payload.release();
    }
  }

  static Map<String, Long> newCloseMarks() {
    return new ConcurrentHashMap<>();
  }
}
