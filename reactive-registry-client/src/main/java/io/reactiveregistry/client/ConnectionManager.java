package io.reactiveregistry.client;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.ServerInfo;
import io.reactiveregistry.protocol.message.SetupData;
import io.rsocket.RSocket;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * {@link Link}; its loss as an empty one.
 */
final class ConnectionManager implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(ConnectionManager.class);

  /** One connection, numbered: registrations and watches redo their work on each new one. */
  record Link(RSocket socket, long generation, URI server) {}

  /** The configured servers, shuffled, then the cluster members learned from them; replaced, never changed. */
  private volatile List<URI> servers;
  private final RandomGenerator random;
  private final String clientName;
  private final Duration minBackoff;
  /** The bearer token every connection presents in its SETUP; null for none. */
  private final @Nullable String token;
  /** TLS for {@code tls://} servers; null: the JVM's default trust store. */
  private final @Nullable ClientTls tls;
  private final Duration maxBackoff;
  private final Duration connectTimeout;
  private final ClientMeters meters;
  private final Sinks.Many<Optional<Link>> links = Sinks.many().replay().latest();
  private final AtomicInteger nextServer = new AtomicInteger();
  private final AtomicLong generations = new AtomicLong();
  private volatile boolean closed;
  private volatile Disposable connecting;
  private volatile Link current;
  /**
   * Whether no server can be reached now: a connection was lost, or an attempt failed, and none
   * has succeeded since. (Not while the first attempt is still under way.)
   */
  private volatile boolean unreachable;
  /** Whether the last link published is the empty one (none yet counts as not). */
  private volatile boolean announcedNone;

  ConnectionManager(List<URI> servers, String clientName, @Nullable String token, @Nullable ClientTls tls,
      Duration minBackoff, Duration maxBackoff, Duration connectTimeout, RandomGenerator random, ClientMeters meters) {
    this.token = token;
    this.tls = tls;
    List<URI> shuffled = new ArrayList<>(servers);
    for (int i = shuffled.size() - 1; i > 0; i--) {
      Collections.swap(shuffled, i, random.nextInt(i + 1));
    }
    this.servers = List.copyOf(shuffled);
    this.random = random;
    this.clientName = clientName;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.connectTimeout = connectTimeout;
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
    URI server = servers.get(Math.floorMod(nextServer.getAndIncrement(), servers.size()));
    String setup = JsonCodec.json().encodeToString(new SetupData(clientName, ClientVersion.VERSION));
    return RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(token == null ? DefaultPayload.create(setup) : ByteBufPayload.create(
            Unpooled.copiedBuffer(setup, StandardCharsets.UTF_8), BearerMetadata.composite(ByteBufAllocator.DEFAULT, token)))
        .connect(ClientTransports.of(server, tls))
        .timeout(connectTimeout)
        .map(socket -> new Link(socket, generations.incrementAndGet(), server));
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
        .doFinally(signal -> {
          if (closed) {
            return;
          }
          current = null;
          unreachable = true;
          meters.connected(false);
          log.warn("lost the connection to registry {}; reconnecting", link.server());
          publish(Optional.empty());
          connect();
        })
        .subscribe(null, error -> { });
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

  /** Adds the members not yet known, in an order shuffled per client, after those already known. */
  synchronized void learn(ServerInfo info, String scheme, URI from) {
    if (info.cluster() == null) {
      return;
    }
    List<URI> known = new ArrayList<>(servers);
    List<URI> found = new ArrayList<>();
    for (ClusterInfo.Member member : info.cluster().members()) {
      if (member.address() != null) {
        URI address = URI.create(scheme + "://" + member.address());
        if (!known.contains(address) && !found.contains(address)) {
          found.add(address);
        }
      }
    }
    if (found.isEmpty()) {
      return;
    }
    for (int i = found.size() - 1; i > 0; i--) {
      Collections.swap(found, i, random.nextInt(i + 1));
    }
    known.addAll(found);
    servers = List.copyOf(known);
    log.info("learned cluster members {} from {}: fails over to them too", found, from);
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
