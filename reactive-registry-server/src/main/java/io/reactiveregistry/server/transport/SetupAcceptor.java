package io.reactiveregistry.server.transport;

import io.micrometer.core.instrument.Counter;
import io.netty.channel.Channel;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.MalformedBodyException;
import io.reactiveregistry.protocol.message.SetupData;
import io.reactiveregistry.protocol.rules.Names;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.request.Connections;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.request.Session;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Credential;
import io.reactiveregistry.server.security.ProtectedMode;
import io.reactiveregistry.server.security.StaticTokens;
import io.reactiveregistry.server.security.TokenFile;
import io.rsocket.ConnectionSetupPayload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.transport.netty.RSocketLengthCodec;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Checks a connection's SETUP, opens its session, and ties the session's release to the
 * connection's close — the one place where a connection's instances are released.
 */
final class SetupAcceptor implements SocketAcceptor {
  private static final Logger log = LoggerFactory.getLogger(SetupAcceptor.class);

  private final RequestLayer layer;
  private final ServerLimits limits;
  private final ServerMeters meters;
  private final AtomicInteger open = new AtomicInteger();
  private final ProtectedMode protectedMode;
  private final Counter refusedByProtectedMode;
  private final Access access;
  private final Counter refusedByAuthentication;
  private final InstantSource clock;
  private final PeerCertificates certificates;
  private final ConnectionChannels channels;
  private final ConnectionMoves moves;
  /** Where expiries are timed: virtual in tests. */
  private final Scheduler timer;

  SetupAcceptor(RequestLayer layer, ServerLimits limits, ServerMeters meters, ProtectedMode protectedMode,
      Access access, InstantSource clock, Scheduler timer, PeerCertificates certificates,
      ConnectionChannels channels, ConnectionMoves moves) {
    this.moves = moves;
    this.certificates = certificates;
    this.channels = channels;
    this.clock = clock;
    this.timer = timer;
    this.protectedMode = protectedMode;
    this.access = access;
    this.refusedByAuthentication = meters.connectionsRefused("rsocket", "authentication");
    this.refusedByProtectedMode = meters.connectionsRefused("rsocket", "protected-mode");
    this.layer = layer;
    this.limits = limits;
    this.meters = meters;
  }

  /**
   * How much may wait to be written to a connection before its subscriptions hold their events
   * back: well below the backlog that closes the connection, so that a subscriber that cannot keep
   * up gets its events coalesced (or a fresh snapshot) and its own requests' answers are not
   * queued behind megabytes of pushes.
   */
  static long pushPauseBytes(ServerLimits limits) {
    return Math.min(1L << 20, limits.maxOutboundBacklogBytes() / 4);
  }

  @Override
  public Mono<RSocket> accept(ConnectionSetupPayload setup, RSocket sendingSocket) {
    SocketAddress remote = PeerAddresses.take();
    String protectedRefusal = protectedMode.refusal(remote);
    if (protectedRefusal != null) {
      refusedByProtectedMode.increment();
      return Mono.error(new RejectedSetupException(protectedRefusal));
    }
    String peer = PeerAddresses.label(remote);
    if (!Protocol.DATA_MIME_TYPE.equals(setup.dataMimeType())) {
      return Mono.error(new RejectedSetupException("data MIME type must be " + Protocol.DATA_MIME_TYPE
          + " (got '" + setup.dataMimeType() + "'); metadata MIME type should be " + Protocol.METADATA_MIME_TYPE));
    }
    if (setup.keepAliveInterval() < limits.minKeepAliveIntervalMs()) {
      // Refused rather than raised: a client that believes it sends keepalives every few
      // milliseconds would misjudge how fast a dead server is noticed.
      return Mono.error(new RejectedSetupException("keepalive interval " + setup.keepAliveInterval()
          + " ms is below this server's floor of " + limits.minKeepAliveIntervalMs() + " ms; ask for at least "
          + limits.minKeepAliveIntervalMs() + " ms"));
    }
    SetupData data;
    try {
      data = setupData(setup);
    } catch (MalformedBodyException e) {
      return Mono.error(new RejectedSetupException("setup data must be empty or a JSON object like "
          + "{\"client\": \"orders-app\", \"version\": \"1.4.2\"}: " + e.getMessage()));
    }
    Credential credential;
    try {
      credential = credential(setup, remote);
    } catch (RuntimeException e) { // the token is never part of the message
      refusedByAuthentication.increment();
      return Mono.error(new RejectedSetupException(ErrorMapping.body(e).message()));
    }
    String client = clientLabel(data);
    String label = client + "@" + peer + (credential == null ? "" : "[" + credential.principal().name() + "]");
    Session owner = layer.open(label);
    Channel channel = channels.of(remote);
    ConnectionSession session = new ConnectionSession(owner, layer, limits, meters, access,
        credential == null ? null : credential.principal(), remote,
        channel == null ? null : new ChannelDrainLoop(channel, pushPauseBytes(limits)));
    layer.listed(owner, new Connections.Listing(client, peer, transport(channel), clock.millis(), session::principal,
        session::openSubscriptions));
    if (data.understands(Protocol.FEATURE_MOVE)) {
      moves.add(owner.id(), label, sendingSocket, () -> layer.owned(owner), clientZone(data.zone()));
    }
    int nowOpen = open.incrementAndGet();
    log.info("connection opened: {} (id {}, {} open)", label, owner.id(), nowOpen);
    Disposable revocation = credential == null ? Disposables.disposed()
        : credential.expiresAt() != null ? closeOnExpiry(credential, session, sendingSocket)
        : closeOnRevocation(credential, session, sendingSocket);
    sendingSocket.onClose()
        .doFinally(signal -> {
          revocation.dispose();
          moves.remove(owner.id());
          int released = session.release();
          log.info("connection closed: {} (id {}), released {} instance(s), {} open",
              label, owner.id(), released, open.decrementAndGet());
        })
        .subscribe(null, error -> { });
    return Mono.just(session);
  }

  /**
   * What speaks for the connection: the bearer token in the SETUP's metadata, else a client
   * certificate a token-file entry names; null for neither (each request must then carry its own
   * token) or when no credentials are configured.
   */
  private Credential credential(ConnectionSetupPayload setup, SocketAddress remote) {
    if (!access.required()) {
      return null;
    }
    String token = Protocol.METADATA_MIME_TYPE.equals(setup.metadataMimeType())
        ? BearerMetadata.read(setup.hasMetadata() ? setup.sliceMetadata() : null) : null;
    return token != null ? access.authenticate(token, remote) : access.certificate(certificates.commonName(remote));
  }

  /**
   * Follows the token file: a connection whose SETUP token is revoked is closed; one whose token's
   * permissions changed acts with the new ones from its next request.
   */
  private Disposable closeOnRevocation(Credential credential, ConnectionSession session, RSocket connection) {
    StaticTokens tokens = access.tokens();
    return tokens.reloads().subscribe(count -> {
      Optional<TokenFile.Entry> now = credential.staticHash() != null ? tokens.byHash(credential.staticHash())
          : tokens.byCertificate(credential.certificateName());
      if (now.isPresent()) {
        session.principal(now.get().principal());
      } else {
        log.info("closing connection {} (id {}): its credential for '{}' was revoked", session.session().label(),
            session.session().id(), credential.principal().name());
        connection.dispose();
      }
    });
  }

  /** A signed token ends at its expiry: so does the connection it opened. */
  private Disposable closeOnExpiry(Credential credential, ConnectionSession session, RSocket connection) {
    Duration left = Duration.between(clock.instant(), credential.expiresAt());
    return Mono.delay(left.isNegative() ? Duration.ZERO : left, timer).subscribe(tick -> {
      log.info("closing connection {} (id {}): its token for '{}' expired at {}", session.session().label(),
          session.session().id(), credential.principal().name(), credential.expiresAt());
      connection.dispose();
    });
  }

  /** TCP connections carry RSocket's length prefix; WebSocket ones frame it themselves. */
  private static String transport(@Nullable Channel channel) {
    if (channel == null) {
      return "unknown";
    }
    return channel.pipeline().get(RSocketLengthCodec.class) != null ? "tcp" : "websocket";
  }

  int openConnections() {
    return open.get();
  }

  /** The setup data; an empty one for none. */
  private static SetupData setupData(ConnectionSetupPayload setup) {
    return setup.data().isReadable() ? JsonCodec.json().decode(setup.sliceData(), SetupData.class)
        : new SetupData(null, null);
  }

  private static String clientLabel(SetupData data) {
    String client = data.client();
    if (client == null || client.isBlank()) {
      return "anonymous";
    }
    // A label ends up in logs: keep it printable and short.
    String printable = client.replaceAll("[^A-Za-z0-9._:@/-]", "_");
    return printable.length() > 64 ? printable.substring(0, 64) : printable;
  }

  /** The zone the client gave, when it is a valid name (another is ignored: the client stays where it is). */
  private static @Nullable String clientZone(@Nullable String zone) {
    if (zone == null || zone.isBlank()) {
      return null;
    }
    try {
      return Names.require("zone", zone);
    } catch (RuntimeException e) {
      log.debug("ignoring the client's zone '{}': {}", zone, e.getMessage());
      return null;
    }
  }
}
