package io.reactiveregistry.server.nacos;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.reactiveregistry.server.request.Session;
import io.reactiveregistry.server.security.Principal;
import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * One Nacos client's gRPC connection (one HTTP/2 connection): its session once the client has set
 * it up on its stream, the stream the server's requests go out on, and the services it subscribed
 * to. A connection is registered by its {@code ConnectionSetupRequest}; until then its requests are
 * answered as Nacos answers them, "unregistered", and the client sets up again. Its ephemeral
 * instances are released when the connection closes.
 *
 * <p>The stream is written by one thread at a time; pushes that find it not ready (the client is
 * slow to read) wait, the newest per service only, and go when it is ready again.
 */
final class NacosConnection {
  final String id;
  final SocketAddress remote;
  /**
   * Why every request of this connection is refused, as its answer (protected mode's refusal of
   * the remote address, or the port's connection limits); null when it is served.
   */
  final @Nullable Payload refusal;
  final long openedAt;
  private volatile @Nullable Session session;
  private volatile @Nullable String client;
  private @Nullable ServerCallStreamObserver<Payload> stream;
  private final Map<String, Payload> waiting = new LinkedHashMap<>();
  private final Map<String, Disposable> subscriptions = new ConcurrentHashMap<>();
  private final AtomicLong serverRequestIds = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Told to connect to another member ({@code ConnectResetRequest} naming it): rebalancing. */
  private final AtomicBoolean moving = new AtomicBoolean();
  /** The member it was told to move to ({@code host:port}); null when it was not. */
  private volatile @Nullable String movedTo;
  /**
   * Its client was told to move before, on another connection, and came back here instead (its
   * server list does not name the member it was sent to): it is not told again.
   */
  private volatile boolean stays;
  private volatile @Nullable CachedPrincipal principal;
  private final AtomicLong keptAliveAt = new AtomicLong(Long.MIN_VALUE / 2);
  /** When the client last sent anything (a request, or a message on its stream). */
  private volatile long activeAt;
  /** The id of the {@code ClientDetectionRequest} the client has not answered yet, and by when it must. */
  private volatile @Nullable String detection;
  private volatile long answerBy;

  /** A token's principal, kept for a short while: a token refused later stops working within it. */
  record CachedPrincipal(String token, @Nullable Principal principal, long until) {}

  NacosConnection(String id, SocketAddress remote, @Nullable Payload refusal, long openedAt) {
    this.id = id;
    this.remote = remote;
    this.refusal = refusal;
    this.openedAt = openedAt;
    this.activeAt = openedAt;
  }

  /** Null until the connection is set up, and once it is closed: its requests are then "unregistered". */
  @Nullable Session session() {
    return closed.get() ? null : session;
  }

  /** The session it had, closed or not: what to release. */
  @Nullable Session opened() {
    return session;
  }

  @Nullable String client() {
    return client;
  }

  /** Registers the connection: its session, and the stream the server's requests go out on. */
  synchronized boolean setUp(Session opened, String clientName, ServerCallStreamObserver<Payload> requests) {
    if (session != null || closed.get()) {
      return false;
    }
    this.client = clientName;
    this.stream = requests;
    this.session = opened;
    return true;
  }

  /** Whether its instances are due to be refreshed now (at most once per {@code everyMillis}); claims it. */
  boolean keepAliveDue(long now, long everyMillis) {
    long last = keptAliveAt.get();
    return now - last >= everyMillis && keptAliveAt.compareAndSet(last, now);
  }

  /** The client sent something: it is alive, and a detection waiting for its answer is over. */
  void active(long now) {
    if (activeAt != now) {
      activeAt = now;
    }
    if (detection != null) {
      detection = null;
    }
  }

  /**
   * Whether the client is to be asked if it is alive ({@code ClientDetectionRequest}): a set-up,
   * open connection that has sent nothing for {@code quietMillis} and is not being asked already.
   */
  boolean detectionDue(long now, long quietMillis) {
    return session != null && !closed.get() && detection == null && now - activeAt >= quietMillis;
  }

  /** Asks it: the request's id, which its answer must carry by {@code deadline}. */
  String detect(long deadline) {
    String id = nextRequestId();
    answerBy = deadline;
    detection = id;
    return id;
  }

  /** Whether it was asked and has neither answered nor sent anything else by now. */
  boolean detectionOverdue(long now) {
    return detection != null && now >= answerBy;
  }

  /** Whether it is set up, open, not yet told to move, and its client follows moves: one rebalancing may move. */
  boolean movable() {
    return session != null && !closed.get() && !moving.get() && !stays;
  }

  /** Marks it told to move to {@code member}; false when it was told before. */
  boolean move(String member) {
    if (!moving.compareAndSet(false, true)) {
      return false;
    }
    movedTo = member;
    return true;
  }

  @Nullable String movedTo() {
    return movedTo;
  }

  /** Its client came back after it was told to move: it is never told again; false when known already. */
  boolean stays() {
    if (stays) {
      return false;
    }
    stays = true;
    return true;
  }

  /** Whether it was told to move to another member. */
  boolean moving() {
    return moving.get();
  }

  /** A request of the server's (a push, an ability table, a reset), its id the connection's next. */
  String nextRequestId() {
    return Long.toString(serverRequestIds.incrementAndGet());
  }

  /** Sends at once when the stream is ready; else keeps it as the newest for {@code key}. */
  synchronized void send(String key, Payload payload) {
    ServerCallStreamObserver<Payload> out = stream;
    if (out == null || closed.get() || out.isCancelled()) {
      return;
    }
    if (!waiting.isEmpty() || !out.isReady()) {
      waiting.remove(key); // the newest goes last, after what was waiting before it
      waiting.put(key, payload);
      return;
    }
    out.onNext(payload);
  }

  /** The stream can take more: what waited goes, oldest first, while it can. */
  synchronized void ready() {
    ServerCallStreamObserver<Payload> out = stream;
    if (out == null || closed.get()) {
      return;
    }
    var pending = waiting.entrySet().iterator();
    while (pending.hasNext() && out.isReady()) {
      out.onNext(pending.next().getValue());
      pending.remove();
    }
  }

  /** Replaces the subscription kept under {@code key} (a client that subscribes again). */
  void subscribed(String key, Disposable subscription) {
    Disposable before = subscriptions.put(key, subscription);
    if (before != null) {
      before.dispose();
    }
    if (closed.get()) {
      subscription.dispose(); // closed meanwhile: close() may have missed it
    }
  }

  /** Whether it holds a subscription under {@code key}. */
  boolean subscribes(String key) {
    return subscriptions.containsKey(key);
  }

  void unsubscribed(String key) {
    Disposable subscription = subscriptions.remove(key);
    if (subscription != null) {
      subscription.dispose();
    }
  }

  int subscriptions() {
    return subscriptions.size();
  }

  @Nullable CachedPrincipal cachedPrincipal() {
    return principal;
  }

  void cache(CachedPrincipal value) {
    this.principal = value;
  }

  @Nullable Principal lastPrincipal() {
    CachedPrincipal cached = principal;
    return cached == null ? null : cached.principal();
  }

  /** Ends its stream with {@code status}: its client sees the connection fail and connects again. */
  synchronized void endStream(Status status) {
    ServerCallStreamObserver<Payload> out = stream;
    if (out != null && !out.isCancelled()) {
      try {
        out.onError(status.asRuntimeException());
      } catch (IllegalStateException alreadyEnded) {
        // the call ended meanwhile
      }
    }
  }

  /** Closes it once: its subscriptions end; whether this call did it. */
  boolean close() {
    if (!closed.compareAndSet(false, true)) {
      return false;
    }
    subscriptions.values().forEach(Disposable::dispose);
    subscriptions.clear();
    synchronized (this) {
      waiting.clear();
    }
    return true;
  }

  boolean isClosed() {
    return closed.get();
  }

  @Override
  public String toString() {
    return "nacos connection " + id + (client == null ? "" : " (" + client + ")");
  }
}
