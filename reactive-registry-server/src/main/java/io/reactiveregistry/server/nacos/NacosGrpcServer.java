package io.reactiveregistry.server.nacos;

import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServerTransportFilter;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.reactiveregistry.server.admission.ConnectionDoor;
import io.reactiveregistry.server.security.ProtectedMode;
import io.reactiveregistry.server.tls.ReloadingSslContext;
import io.reactiveregistry.server.tls.TlsFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Nacos 2.x's gRPC port: its two services, as its {@code nacos_grpc_service.proto} declares them
 * (no package): {@code Request/request}, unary, and {@code BiRequestStream/requestBiStream}, both
 * carrying {@link Payload}s. A connection is one HTTP/2 connection, tracked from the transport's
 * start to its end; the calls made on it find it in their context.
 *
 * <p>Calls run on gRPC's Netty event loops (direct executor): what they do is the request layer's
 * non-blocking work. Dead peers are found by HTTP/2 pings: a connection that does not answer one
 * within {@link #PING_TIMEOUT} of {@link #PING_INTERVAL} of silence is closed, and what it owned is
 * released.
 */
final class NacosGrpcServer {
  private static final Logger log = LoggerFactory.getLogger(NacosGrpcServer.class);
  static final Duration PING_INTERVAL = Duration.ofSeconds(10);
  static final Duration PING_TIMEOUT = Duration.ofSeconds(5);
  /** How often quiet connections are looked for (Nacos's server looks every 3 s). */
  private static final Duration QUIET_CHECK_EVERY = Duration.ofSeconds(1);
  /**
   * How long a connection is left alone by rebalancing after it opens: its client sets it up and
   * registers (again) first. A Nacos client redoes its registrations on a new connection within its
   * redo period (3 s); told to move before that, a client that came back (its server list lacks the
   * member it was sent to) would be told again before it could be known (see {@link NacosRequests}).
   */
  static final Duration SETTLE = Duration.ofSeconds(4);
  private static final Attributes.Key<NacosConnection> CONNECTION = Attributes.Key.create("nacos-connection");
  private static final Context.Key<NacosConnection> CALLER = Context.key("nacos-connection");

  static final MethodDescriptor<Payload, Payload> REQUEST = method(MethodDescriptor.MethodType.UNARY, "Request",
      "request");
  static final MethodDescriptor<Payload, Payload> BI_STREAM = method(MethodDescriptor.MethodType.BIDI_STREAMING,
      "BiRequestStream", "requestBiStream");

  private final NacosCalls requests;
  private final Set<NacosConnection> connections = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Integer> perAddress = new ConcurrentHashMap<>();
  private final ConnectionDoor.Limits limits;
  private final Server server;
  private final InstantSource clock;
  private Disposable quietCheck = Disposables.disposed();
  /** Periodic looks at the connections finished so far: a test waits on it instead of sleeping. */
  private final AtomicLong looks = new AtomicLong();

  NacosGrpcServer(NacosCalls requests, String host, int port, int maxMessageBytes, @Nullable TlsFiles tls,
      @Nullable ReloadingSslContext reloads, ProtectedMode protectedMode, ConnectionDoor.Limits limits,
      InstantSource clock) {
    this.requests = requests;
    this.limits = limits;
    this.clock = clock;
    ServerServiceDefinition request = ServerServiceDefinition.builder("Request")
        .addMethod(REQUEST, ServerCalls.asyncUnaryCall(this::request))
        .build();
    ServerServiceDefinition biStream = ServerServiceDefinition.builder("BiRequestStream")
        .addMethod(BI_STREAM, ServerCalls.asyncBidiStreamingCall(this::stream))
        .build();
    ServerInterceptor caller = new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
          ServerCallHandler<Q, A> next) {
        NacosConnection connection = call.getAttributes().get(CONNECTION);
        return Contexts.interceptCall(Context.current().withValue(CALLER, connection), call, headers, next);
      }
    };
    this.server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port), credentials(tls, reloads))
        .directExecutor()
        .maxInboundMessageSize(maxMessageBytes)
        .keepAliveTime(PING_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)
        .keepAliveTimeout(PING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        // Nacos's clients ping every few minutes, and more often when told; let them.
        .permitKeepAliveTime(1, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true)
        .addTransportFilter(new ServerTransportFilter() {
          @Override
          public Attributes transportReady(Attributes attributes) {
            SocketAddress remote = attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
            long now = clock.millis();
            NacosConnection connection = new NacosConnection(now + "_" + address(remote), remote,
                refusal(protectedMode, remote), now);
            connections.add(connection);
            return attributes.toBuilder().set(CONNECTION, connection).build();
          }

          @Override
          public void transportTerminated(@Nullable Attributes attributes) {
            // gRPC passes no attributes for a connection that ended before its HTTP/2 preface (a
            // TCP probe that connects and closes): it never was one of ours.
            NacosConnection connection = attributes == null ? null : attributes.get(CONNECTION);
            if (connection != null) {
              connections.remove(connection);
              perAddress.computeIfPresent(host(connection.remote), (host, count) -> count == 1 ? null : count - 1);
              requests.closed(connection);
            }
          }
        })
        .addService(ServerInterceptors.intercept(request, caller))
        .addService(ServerInterceptors.intercept(biStream, caller))
        .build();
  }

  /**
   * Binds the port, and starts asking quiet connections whether they are alive; blocking: call it
   * off the event loops.
   */
  NacosGrpcServer start() {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("the Nacos gRPC port could not be opened: " + e.getMessage(), e);
    }
    quietCheck = Flux.interval(QUIET_CHECK_EVERY, QUIET_CHECK_EVERY, Schedulers.parallel())
        .subscribe(tick -> {
          try {
            requests.tick(connections);
          } catch (RuntimeException e) { // the next tick tries again
            log.warn("the periodic look at the Nacos connections failed: {}", e.toString());
          }
          looks.incrementAndGet();
        });
    return this;
  }

  int port() {
    return server.getPort();
  }

  int openConnections() {
    return connections.size();
  }

  /** Set-up connections not yet told to move: what this member reports to rebalancing. */
  /** How many periodic looks at the connections have finished. */
  long looks() {
    return looks.get();
  }

  int movableConnections() {
    int movable = 0;
    for (NacosConnection connection : connections) {
      if (connection.movable()) {
        movable++;
      }
    }
    return movable;
  }

  /**
   * Tells up to {@code count} set-up connections, open for at least {@link #SETTLE} and not told
   * before, the most recently opened first, to connect to the member whose Nacos HTTP port is
   * {@code host:port} ({@code ConnectResetRequest} naming it: the client connects there, closes
   * this connection and registers again there): how many were told.
   */
  int move(int count, String host, int port) {
    long settledBefore = clock.millis() - SETTLE.toMillis();
    List<NacosConnection> newest = connections.stream()
        .filter(NacosConnection::movable)
        .filter(connection -> connection.openedAt <= settledBefore)
        .sorted(Comparator.comparingLong((NacosConnection connection) -> connection.openedAt).reversed())
        .limit(Math.max(0, count))
        .toList();
    int told = 0;
    for (NacosConnection connection : newest) {
      if (connection.move(host + ":" + port)) {
        connection.send("reset", NacosJson.serverRequest("ConnectResetRequest", connection.nextRequestId(),
            Map.of("module", "internal", "serverIp", host, "serverPort", Integer.toString(port))));
        told++;
      }
    }
    return told;
  }

  /**
   * Stops: each client is told to connect elsewhere ({@code ConnectResetRequest}, which its client
   * answers by moving to the next server of its list), the port closes, and connections still
   * open after {@code grace} are closed. Blocking: call it off the event loops.
   */
  void stop(Duration grace) {
    stop(grace, List.of());
  }

  /**
   * As {@link #stop(Duration)}, each client told to connect to the least loaded of
   * {@code destinations}, counting those sent there already (none: as {@link #stop(Duration)}).
   */
  void stop(Duration grace, List<NacosDoor.Destination> destinations) {
    quietCheck.dispose();
    int[] sent = new int[destinations.size()];
    int told = 0;
    for (NacosConnection connection : connections) {
      Map<String, String> body = Map.of("module", "internal");
      if (!destinations.isEmpty()) {
        int to = leastLoaded(destinations, sent);
        sent[to]++;
        NacosDoor.Destination destination = destinations.get(to);
        body = Map.of("module", "internal", "serverIp", destination.host(),
            "serverPort", Integer.toString(destination.port()));
      }
      connection.send("reset", NacosJson.serverRequest("ConnectResetRequest", connection.nextRequestId(), body));
      told++;
    }
    if (told > 0) {
      log.info("told {} Nacos client(s) to reconnect elsewhere: {}", told, destinations.isEmpty()
          ? "each to the next server of its own list"
          : IntStream.range(0, sent.length).filter(i -> sent[i] > 0)
              .mapToObj(i -> sent[i] + " to " + destinations.get(i).host() + ":" + destinations.get(i).port())
              .collect(Collectors.joining(", ")));
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
        server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
    log.info("the Nacos gRPC port closed");
  }

  /** The destination with the fewest clients once those already sent there count; the first of equals. */
  private static int leastLoaded(List<NacosDoor.Destination> destinations, int[] sent) {
    int least = 0;
    for (int i = 1; i < destinations.size(); i++) {
      if (destinations.get(i).clients() + sent[i] < destinations.get(least).clients() + sent[least]) {
        least = i;
      }
    }
    return least;
  }

  private void request(Payload request, StreamObserver<Payload> answer) {
    NacosConnection connection = CALLER.get();
    requests.request(connection, request).subscribe(done -> {
      answer.onNext(done);
      answer.onCompleted();
    }, error -> answer.onError(error));
  }

  private StreamObserver<Payload> stream(StreamObserver<Payload> toClient) {
    NacosConnection connection = CALLER.get();
    ServerCallStreamObserver<Payload> out = (ServerCallStreamObserver<Payload>) toClient;
    out.setOnReadyHandler(connection::ready);
    return new StreamObserver<>() {
      @Override
      public void onNext(Payload payload) {
        requests.streamed(connection, payload, out);
      }

      @Override
      public void onError(Throwable error) {
        requests.closed(connection); // the client is gone, or its stream is: it connects again
      }

      @Override
      public void onCompleted() {
        requests.closed(connection);
        if (!out.isCancelled()) {
          out.onCompleted();
        }
      }
    };
  }

  private static MethodDescriptor<Payload, Payload> method(MethodDescriptor.MethodType type, String service,
      String name) {
    return MethodDescriptor.<Payload, Payload>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
        .setRequestMarshaller(Payload.MARSHALLER)
        .setResponseMarshaller(Payload.MARSHALLER)
        .build();
  }

  /**
   * The port's TLS, from the server's files, read again whenever the other ports read them again
   * ({@code reloads}), so that a renewed certificate is served without a restart; the client CA,
   * when given, read once.
   */
  private static ServerCredentials credentials(@Nullable TlsFiles tls, @Nullable ReloadingSslContext reloads) {
    if (tls == null) {
      return InsecureServerCredentials.create();
    }
    try {
      AdvancedTlsX509KeyManager keys = new AdvancedTlsX509KeyManager();
      keys.updateIdentityCredentials(tls.certificate().toFile(), tls.key().toFile());
      if (reloads != null) {
        reloads.onReload(() -> {
          try {
            keys.updateIdentityCredentials(tls.certificate().toFile(), tls.key().toFile());
          } catch (IOException | GeneralSecurityException e) {
            log.error("the Nacos gRPC port keeps its certificate: the files read again are refused: {}",
                e.getMessage());
          }
        });
      }
      TlsServerCredentials.Builder builder = TlsServerCredentials.newBuilder().keyManager(keys);
      if (tls.clientCa() != null) {
        builder.trustManager(tls.clientCa().toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("the TLS files could not be read for the Nacos gRPC port: " + e.getMessage(),
          e);
    }
  }

  /**
   * Whether, and how, a new connection is refused: protected mode first, then the port's limits
   * (the RSocket ports' numbers: this many connections in all, and from one address). A refused
   * connection is answered, never dropped silently: its client reads why and tries another server.
   */
  private @Nullable Payload refusal(ProtectedMode protectedMode, SocketAddress remote) {
    int fromThere = perAddress.merge(host(remote), 1, Integer::sum); // every connection counts until it ends
    String refused = protectedMode.refusal(remote);
    if (refused != null) {
      return NacosJson.error(NacosJson.NO_RIGHT, refused);
    }
    if (connections.size() >= limits.maxConnections()) {
      return NacosJson.error(NacosJson.OVER_THRESHOLD, "this server holds " + limits.maxConnections()
          + " Nacos connections, its most (--max-connections-per-port): connect to another member");
    }
    if (fromThere > limits.maxPerAddress()) {
      return NacosJson.error(NacosJson.OVER_THRESHOLD, "this server holds " + limits.maxPerAddress()
          + " Nacos connections from " + host(remote) + ", its most from one address "
          + "(--max-connections-per-address)");
    }
    return null;
  }

  private static String host(@Nullable SocketAddress remote) {
    return remote instanceof InetSocketAddress inet ? inet.getAddress().getHostAddress() : String.valueOf(remote);
  }

  private static String address(@Nullable SocketAddress remote) {
    if (remote instanceof InetSocketAddress inet) {
      return inet.getAddress().getHostAddress() + "_" + inet.getPort();
    }
    return String.valueOf(remote);
  }
}
