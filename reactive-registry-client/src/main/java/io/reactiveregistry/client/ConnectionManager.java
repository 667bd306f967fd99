package io.reactiveregistry.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.MoveRequest;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.SetupData;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

/**
 * Keeps one connection to one of the configured servers. When it is lost, it reconnects with
 * exponential backoff and jitter, trying the servers in an order shuffled once per client (so a
 * fleet does not stampede onto the same next server), starting with the one after the server it
 * lost. The members of a cluster it reaches are learned from {@code server.info} and tried too. Every new connection is published as a
 * {@link Link}; its loss as an empty one. A server that asks the client to move
 * ({@code connection.move}) gets a new connection elsewhere published before the old one closes.
 */
final class ConnectionManager implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(ConnectionManager.class);

  /** One connection, numbered: registrations and watches redo their work on each new one. */
  record Link(RSocket socket, long generation, URI server) {}

  /** The configured servers, shuffled, then the cluster members learned from them; replaced, never changed. */
  private volatile List<URI> servers;
  /** This client's zone: members of it are tried first (null: none). */
  private final @Nullable String zone;
  private final RandomGenerator random;
  private final String clientName;
  private final Duration minBackoff;
  /** The bearer token every connection presents in its SETUP; null for none. */
  private final @Nullable String token;
  /** TLS for {@code tls://} servers; null: the JVM's default trust store. */
  private final @Nullable ClientTls tls;
  private final Duration maxBackoff;
  private final Duration connectTimeout;
  /** How long a move waits for the server to close the old connection before closing it itself. */
  private final Duration moveTimeout;
  private final ClientMeters meters;
  private final Sinks.Many<Optional<Link>> links = Sinks.many().replay().latest();
  private final AtomicInteger nextServer = new AtomicInteger();
  private final AtomicLong generations = new AtomicLong();
  private volatile boolean closed;
  private volatile Disposable connecting;
  private volatile Link current;
  /** The connection being moved away from, while a move is under way (guarded by this). */
  /**
   * The connections this client is moving away from: asked to move, it keeps each until the server
   * closes it (every registration taken over elsewhere). A connection it moved to may itself be
   * asked to move meanwhile (its member stops, or rebalances): that is a move of its own.
   */
  private final Set<Link> leaving = ConcurrentHashMap.newKeySet();
  /**
   * Whether no server can be reached now: a connection was lost, or an attempt failed, and none
   * has succeeded since. (Not while the first attempt is still under way.)
   */
  private volatile boolean unreachable;
  /** Whether the last link published is the empty one (none yet counts as not). */
  private volatile boolean announcedNone;

  ConnectionManager(List<URI> servers, String clientName, @Nullable String zone, @Nullable String token,
      @Nullable ClientTls tls,
      Duration minBackoff, Duration maxBackoff, Duration connectTimeout, Duration moveTimeout, RandomGenerator random,
      ClientMeters meters) {
    this.token = token;
    this.tls = tls;
    this.servers = List.copyOf(shuffled(new ArrayList<>(servers), random));
    this.random = random;
    this.clientName = clientName;
    this.zone = zone;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.connectTimeout = connectTimeout;
    this.moveTimeout = moveTimeout;
    this.meters = meters;
  }

  void start() {
    connect();
  }



  /** The current link (replayed to late subscribers), then each change. Empty while disconnected. */
  Flux<Optional<Link>> links() {
    return links.asFlux();
  }

  /** The live connection, waiting up to {@code timeout} for one. */
  Mono<Link> link(Duration timeout) {
    return links.asFlux()
        .filter(link -> link.isPresent() && !link.get().socket().isDisposed())
        .map(Optional::get)
        .next()
        .timeout(timeout, Mono.error(() -> new RegistryUnavailableException(
            "no registry server reachable within " + timeout + " (servers: " + servers + ")", null)));
  }

  /** The connection in use now; null while disconnected. */
  Link current() {
    return current;
  }

  boolean connected() {
    Link link = current;
    return link != null && !link.socket().isDisposed();
  }

  /**
   * True while no server can be reached: the client lost its connection or failed to make one,
   * and no attempt has succeeded since. Reads then answer from what the client saw last at once,
   * rather than wait for a connection that is not coming within their timeout.
   */
  boolean unreachable() {
    return unreachable && !connected();
  }

  private void connect() {
    connecting = Mono.defer(this::connectOnce)
        .retryWhen(Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).jitter(0.5)
            .filter(error -> !closed)
            .doBeforeRetry(signal -> {
              unreachable = true;
              if (!announcedNone && current == null) {
                publish(Optional.empty()); // the first attempts failed: watches show what they kept
              }
              log.debug("connect attempt {} failed: {}", signal.totalRetries() + 1, signal.failure().toString());
            }))
        .subscribe(this::connected, error -> log.debug("stopped connecting: {}", error.toString()));
  }

  private Mono<Link> connectOnce() {
    return connectTo(servers.get(Math.floorMod(nextServer.getAndIncrement(), servers.size())));
  }

  /**
   * One connection to {@code server}. Its SETUP says the client honours {@code connection.move};
   * the server's requests on it are answered by {@link #fromServer}.
   */
  private Mono<Link> connectTo(URI server) {
    String setup = JsonCodec.json().encodeToString(new SetupData(clientName, ClientVersion.VERSION,
        List.of(Protocol.FEATURE_MOVE), zone));
    AtomicReference<Link> made = new AtomicReference<>();
    return RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(token == null ? DefaultPayload.create(setup) : ByteBufPayload.create(
            Unpooled.copiedBuffer(setup, StandardCharsets.UTF_8), BearerMetadata.composite(ByteBufAllocator.DEFAULT, token)))
        .acceptor(SocketAcceptor.forFireAndForget(payload -> fromServer(made.get(), payload)))
        .connect(ClientTransports.of(server, tls))
        .timeout(connectTimeout)
        .map(socket -> {
          Link link = new Link(socket, generations.incrementAndGet(), server);
          made.set(link);
          return link;
        });
  }

  /** A fire-and-forget from the server: {@code connection.move} is the one the contract has. */
  private Mono<Void> fromServer(@Nullable Link on, Payload payload) {
    try {
      if (on != null && RouteMetadata.routes(payload.hasMetadata() ? payload.sliceMetadata() : null)
          .contains(Protocol.CONNECTION_MOVE_ROUTE)) {
        move(on, JsonCodec.json().decode(payload.sliceData(), MoveRequest.class));
      }
    } catch (RuntimeException e) {
      log.debug("ignored a request from registry {}: {}", on == null ? "?" : on.server(), e.toString());
    } finally {
      payload.release();
    }
    return Mono.empty();
  }

  /**
   * The server asked this client to move: it connects to one of the members named (in random
   * order, so that a member's clients spread), else to any other server it knows; registrations
   * and watches move to the new connection as on a reconnect. The server closes the old connection
   * once it has seen every registration taken over by the new member (so closing it releases
   * nothing and no view loses anything); the client closes it itself only after the request
   * timeout. When no other server
   * answers, the client stays until the server closes the connection, then reconnects as usual.
   */
  void move(Link from, MoveRequest request) {
    synchronized (this) {
      if (closed || current != from || !leaving.add(from)) {
        return;
      }
    }
    List<URI> destinations = destinations(from.server(), request.members());
    log.info("registry {} asks this client to move ({}); moving to one of {}", from.server(), request.reason(),
        destinations);
    Flux.fromIterable(destinations)
        .concatMap(server -> connectTo(server).onErrorResume(error -> {
          log.debug("could not move to {}: {}", server, error.toString());
          return Mono.empty();
        }))
        .next()
        .map(Optional::of)
        .defaultIfEmpty(Optional.empty())
        .subscribe(made -> made.ifPresentOrElse(to -> movedTo(from, to), () -> stayed(from)), error -> stayed(from));
  }

  /** The members named first (shuffled), then every other server known; never the one left. */
  private List<URI> destinations(URI leaving, List<String> members) {
    List<URI> named = new ArrayList<>();
    for (String member : members) {
      URI address = URI.create(leaving.getScheme() + "://" + member);
      if (!address.equals(leaving) && !named.contains(address)) {
        named.add(address);
      }
    }
    shuffled(named, random);
    for (URI server : servers) {
      if (!server.equals(leaving) && !named.contains(server)) {
        named.add(server);
      }
    }
    return named;
  }

  private void movedTo(Link from, Link to) {
    synchronized (this) {
      if (closed || current != from) {
        leaving.remove(from);
        to.socket().dispose();
        return;
      }
    }
    meters.moved();
    connected(to); // registrations and watches start again on it
    // The server closes the old connection once every registration on it has been taken over
    // (closing it then releases nothing); one that does not is left after the move timeout.
    from.socket().onClose()
        .timeout(moveTimeout, Mono.fromRunnable(() -> from.socket().dispose()))
        .doFinally(signal -> {
          leaving.remove(from);
          log.info("moved from registry {} to {} (connection {})", from.server(), to.server(), to.generation());
        })
        .subscribe(null, error -> { });
  }

  /** No other server answered: the client stays where it is (and reconnects if that closed meanwhile). */
  private void stayed(Link from) {
    log.warn("could not move away from registry {}: no other server answered; staying until it closes the "
        + "connection", from.server());
    leaving.remove(from);
    if (from.socket().isDisposed()) {
      lost(from);
    }
  }

  private void connected(Link link) {
    if (closed) {
      link.socket().dispose();
      return;
    }
    current = link;
    unreachable = false;
    meters.connected(true);
    if (link.generation() > 1) {
      meters.reconnected();
    }
    log.info("connected to registry {} (connection {})", link.server(), link.generation());
    publish(Optional.of(link));
    discover(link);
    link.socket().onClose()
        .doFinally(signal -> lost(link))
        .subscribe(null, error -> { });
  }

  /**
   * {@code link} closed: reconnects if it was the connection in use (not one the client moved away
   * from, nor one whose move is under way: the move reconnects).
   */
  private void lost(Link link) {
    synchronized (this) {
      if (closed || current != link || leaving.contains(link)) {
        return;
      }
      current = null;
    }
    unreachable = true;
    meters.connected(false);
    log.warn("lost the connection to registry {}; reconnecting", link.server());
    publish(Optional.empty());
    connect();
  }

  /**
   * Asks the server for its cluster's members, so that a client given one address can fail over to
   * the others. Only over {@code tcp://} and {@code tls://}: a member's address is its RSocket TCP port.
   */
  private void discover(Link link) {
    String scheme = link.server().getScheme();
    if (!"tcp".equals(scheme) && !"tls".equals(scheme)) {
      return;
    }
    link.socket().requestResponse(Wire.payload("server.info", "{}".getBytes(StandardCharsets.UTF_8)))
        .map(payload -> Wire.decode(payload, ServerInfo.class))
        .subscribe(info -> learn(info, scheme, link.server()),
            error -> log.debug("could not ask {} for its cluster's members: {}", link.server(), error.toString()));
  }

  /**
   * Adds the members not yet known, in an order shuffled per client, after those already known;
   * with a zone, the members of this client's zone go first, so that a reconnect tries them before
   * the others.
   */
  synchronized void learn(ServerInfo info, String scheme, URI from) {
    if (info.cluster() == null) {
      return;
    }
    List<URI> known = new ArrayList<>(servers);
    List<URI> found = new ArrayList<>();
    List<URI> inZone = new ArrayList<>();
    for (ClusterInfo.Member member : info.cluster().members()) {
      if (member.address() != null) {
        URI address = URI.create(scheme + "://" + member.address());
        if (!known.contains(address) && !found.contains(address)) {
          found.add(address);
        }
        if (zone != null && zone.equals(member.zone())) {
          inZone.add(address);
        }
      }
    }
    known.addAll(shuffled(found, random));
    if (!inZone.isEmpty()) {
      List<URI> ordered = new ArrayList<>(known.stream().filter(inZone::contains).toList());
      known.stream().filter(server -> !inZone.contains(server)).forEach(ordered::add);
      known = ordered;
    }
    if (known.equals(servers)) {
      return;
    }
    servers = List.copyOf(known);
    nextServer.set(0);
    log.info("learned cluster members from {}: fails over to {}{}", from, servers,
        inZone.isEmpty() ? "" : " (zone " + zone + " first)");
  }

  /** {@code list} in a random order (Fisher-Yates, in place), returned. */
  private static <T> List<T> shuffled(List<T> list, RandomGenerator random) {
    for (int i = list.size() - 1; i > 0; i--) {
      Collections.swap(list, i, random.nextInt(i + 1));
    }
    return list;
  }

  /** The servers it connects to, in the order it tries them. */
  List<URI> servers() {
    return servers;
  }

  private synchronized void publish(Optional<Link> link) {
    announcedNone = link.isEmpty();
    links.tryEmitNext(link);
  }

  @Override
  public void dispose() {
    closed = true;
    Disposable attempt = connecting;
    if (attempt != null) {
      attempt.dispose();
    }
    Link link = current;
    if (link != null) {
      link.socket().dispose();
    }
    synchronized (this) {
      links.tryEmitComplete();
    }
    meters.connected(false);
  }

  @Override
  public boolean isDisposed() {
    return closed;
  }
}
