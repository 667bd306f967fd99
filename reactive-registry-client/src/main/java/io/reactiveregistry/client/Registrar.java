package io.reactiveregistry.client;

import io.reactiveregistry.client.ConnectionManager.Link;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.message.BatchRegistration;
import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.Heartbeat;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceRef;
import io.reactiveregistry.protocol.message.InstanceStatus;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.Registration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The client's registrations: registers, heartbeats each instance on the connection it was
 * registered on, and registers every active instance again (same instanceId) on each new
 * connection — the "redo" that makes a server restart or failover invisible to the application.
 *
 * <p>Heartbeats are driven by one ticker per connection, not one timer per instance: each tick
 * sends every heartbeat that has come due in one burst, which the transport writes and flushes
 * together. A heartbeat names its instance, so a server that lost it (an expiry during a long
 * pause) re-creates it.
 *
 * <p>One registration per instance: registering an instance this client already keeps (the same
 * service and instance id) replaces that registration — its heartbeats and its redo are the new
 * one's, and the old handle is no longer active — so deregistering the new handle ends it.
 *
 * <p>A redo that fails (a timeout, {@code LIMIT_EXCEEDED}, a server still starting) is retried
 * with backoff on the same connection until it succeeds, the connection is lost (the next one
 * redoes it) or the registration ends; each failure is counted. Until it succeeds the instance is
 * not registered there, and {@link Registration#isActive()} says so.
 */
final class Registrar implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(Registrar.class);

  /** How often the ticker looks for due heartbeats; a heartbeat is late by at most this much. */
  private static final Duration TICK = Duration.ofMillis(250);

  private final ConnectionManager connections;
  private final Duration requestTimeout;
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final ClientMeters meters;
  /** Each kept instance's registration, by its service and instance id. */
  private final Map<String, Active> active = new ConcurrentHashMap<>();
  private final Disposable redo;
  /** Batches by service: the connection's whole set of instances in each. */
  private final Map<ServiceName, ActiveBatch> batches = new ConcurrentHashMap<>();
  private final Disposable ticker;

  Registrar(ConnectionManager connections, Duration requestTimeout, Duration minBackoff, Duration maxBackoff,
      ClientMeters meters) {
    this.connections = connections;
    this.requestTimeout = requestTimeout;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
    this.meters = meters;
    this.redo = connections.links().filter(Optional::isPresent).map(Optional::get).subscribe(this::redo);
    this.ticker = Flux.interval(TICK, TICK).onBackpressureDrop().subscribe(tick -> sendDueHeartbeats());
  }

  /** Sends, on the connection each was registered on, every heartbeat whose time has come. */
  private void sendDueHeartbeats() {
    long now = System.nanoTime();
    for (Active registration : active.values()) {
      registration.beatIfDue(now);
    }
    for (ActiveBatch batch : batches.values()) {
      batch.beatIfDue(now);
    }
  }

  int count() {
    return active.size();
  }

  Collection<Active> active() {
    return active.values();
  }

  Mono<io.reactiveregistry.client.Registration> register(ServiceName service, boolean ephemeral, InstanceBody instance) {
    Registration body = new Registration(service.namespace(), service.group(), service.service(), ephemeral, instance);
    return onALiveLink(link -> send(link, body).map(result -> {
      Active registration = new Active(service, ephemeral, instance, result);
      active.put(registration.key(), registration); // replaces this client's earlier one, if any
      registration.keepAlive(link, result.heartbeatIntervalMs());
      againIfReplaced(link, now -> registerAgain(registration, now));
      return (io.reactiveregistry.client.Registration) registration;
    }));
  }

  /** Retried on the next connection when the one a request went out on closed under it. */
  private static final int ATTEMPTS_ACROSS_CONNECTIONS = 3;

  /**
   * {@code attempt} on the live connection; made again on the next one when that connection closed
   * before the answer came (the client moved to another member, or lost it): registering again is
   * harmless, and the caller should not see the move.
   */
  private <T> Mono<T> onALiveLink(Function<Link, Mono<T>> attempt) {
    return Mono.defer(() -> connections.link(requestTimeout))
        .flatMap(link -> attempt.apply(link)
            .onErrorMap(error -> !Wire.isRefusal(error) && link.socket().isDisposed(), ClosedUnder::new))
        .retryWhen(Retry.max(ATTEMPTS_ACROSS_CONNECTIONS - 1).filter(ClosedUnder.class::isInstance)
            .onRetryExhaustedThrow((spec, signal) -> signal.failure()))
        .onErrorMap(ClosedUnder.class, Throwable::getCause);
  }

  /** The connection a request went out on closed before its answer came. */
  private static final class ClosedUnder extends RuntimeException {
    ClosedUnder(Throwable cause) {
      super(cause.getMessage(), cause, false, false);
    }
  }

  /**
   * The connection may have been replaced while an answer was on its way, after the new
   * connection's redo looked at what is registered: then {@code again} registers it on the new one.
   */
  private void againIfReplaced(Link answeredOn, Consumer<Link> again) {
    Link now = connections.current();
    if (now != null && now.generation() > answeredOn.generation()) {
      again.accept(now);
    }
  }

  private Mono<RegisterResult> send(Link link, Registration body) {
    return request(link, Route.INSTANCE_REGISTER, body, RegisterResult.class);
  }

  /** One request-response on {@code link}, its answer decoded, bounded by the request timeout. */
  private <T> Mono<T> request(Link link, Route route, Object body, Class<T> answer) {
    return meters.timed(route, Mono.deferContextual(context ->
            link.socket().requestResponse(Wire.payload(route.routeName(), body, context)))
        .map(payload -> Wire.decode(payload, answer))
        .timeout(requestTimeout)
        .onErrorMap(Wire::translate));
  }

  Collection<ActiveBatch> batches() {
    return batches.values();
  }

  /** Registers {@code instances} as the client's whole set in {@code service}, replacing an earlier batch. */
  Mono<io.reactiveregistry.client.BatchRegistration> registerBatch(ServiceName service, List<InstanceBody> instances) {
    BatchRegistration body = new BatchRegistration(service.namespace(), service.group(), service.service(),
        List.copyOf(instances));
    return onALiveLink(link -> sendBatch(link, body).map(result -> {
      ActiveBatch batch = new ActiveBatch(service, body, result);
      batches.put(service, batch);
      batch.keepAlive(link, result);
      againIfReplaced(link, now -> registerBatchAgain(batch, now));
      return (io.reactiveregistry.client.BatchRegistration) batch;
    }));
  }

  private Mono<BatchResult> sendBatch(Link link, BatchRegistration body) {
    return request(link, Route.INSTANCE_BATCH_REGISTER, body, BatchResult.class);
  }

  /** On a new connection, every registration and batch made on an older one is made again. */
  private void redo(Link link) {
    for (Active registration : active.values()) {
      if (registration.generation < link.generation()) {
        registerAgain(registration, link);
      }
    }
    for (ActiveBatch batch : batches.values()) {
      if (batch.generation < link.generation()) {
        registerBatchAgain(batch, link);
      }
    }
  }

  /** A batch registered again on {@code link}, whole, as {@link #again} does it. */
  private void registerBatchAgain(ActiveBatch batch, Link link) {
    again("the batch of " + batch.service, link, () -> sendBatch(link, batch.body), batch::kept,
        result -> batch.keepAlive(link, result));
  }

  /** A registration made again on {@code link}, as {@link #again} does it. */
  private void registerAgain(Active registration, Link link) {
    again(registration.instanceId(), link, () -> send(link, registration.body()), registration::kept,
        result -> registration.keepAlive(link, result.heartbeatIntervalMs()));
  }

  /**
   * Sends {@code request} on {@code link}, retrying with backoff while what it registers is
   * {@code kept} and the connection is open; {@code registered} takes the answer if it is still
   * kept then. Each failure is counted; the first is logged as a warning, later ones at debug level.
   */
  private <T> void again(String what, Link link, Supplier<Mono<T>> request, BooleanSupplier kept,
      Consumer<T> registered) {
    AtomicInteger failures = new AtomicInteger();
    Mono.defer(request)
        .doOnError(error -> {
          meters.redoFailed();
          if (failures.getAndIncrement() == 0) {
            log.warn("could not register {} again on {} ({}); retrying", what, link.server(), error.toString());
          } else {
            log.debug("register {} again on {}: attempt {} failed: {}", what, link.server(), failures.get(),
                error.toString());
          }
        })
        .retryWhen(Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).jitter(0.5)
            .filter(error -> kept.getAsBoolean() && !link.socket().isDisposed()))
        .subscribe(result -> {
          if (kept.getAsBoolean()) {
            registered.accept(result);
            if (failures.get() > 0) {
              log.info("registered {} again on {} after {} failed attempt(s)", what, link.server(), failures.get());
            }
          }
        }, error -> log.debug("stopped registering {} again on {}: {}", what, link.server(), error.toString()));
  }

  @Override
  public void dispose() {
    redo.dispose();
    ticker.dispose();
  }

  /** A live batch: heartbeated with {@code {}}, which refreshes every instance of the connection. */
  final class ActiveBatch implements io.reactiveregistry.client.BatchRegistration {
    private static final byte[] HEARTBEAT_ALL = "{}".getBytes(StandardCharsets.UTF_8);
    private final ServiceName service;
    private final BatchRegistration body;
    private volatile List<String> instanceIds;
    private volatile long intervalMs;
    private volatile long generation;
    private Link link;
    private long nextBeatAt;

    ActiveBatch(ServiceName service, BatchRegistration body, BatchResult result) {
      this.service = service;
      this.body = body;
      this.instanceIds = List.copyOf(result.instanceIds());
      this.intervalMs = result.heartbeatIntervalMs() == null ? 5_000 : result.heartbeatIntervalMs();
    }

    boolean kept() {
      return batches.get(service) == this;
    }

    synchronized void keepAlive(Link link, BatchResult result) {
      if (this.link != null && link.generation() < this.link.generation()) {
        return;
      }
      generation = link.generation();
      instanceIds = List.copyOf(result.instanceIds());
      if (result.heartbeatIntervalMs() != null) {
        intervalMs = result.heartbeatIntervalMs();
      }
      this.link = link;
      nextBeatAt = System.nanoTime() + Duration.ofMillis(intervalMs).toNanos();
    }

    synchronized void beatIfDue(long now) {
      Link on = link;
      if (on == null || now < nextBeatAt || on.socket().isDisposed() || body.instances().isEmpty()) {
        return;
      }
      nextBeatAt = now + Duration.ofMillis(intervalMs).toNanos();
      on.socket().fireAndForget(Wire.payload(Route.INSTANCE_HEARTBEAT.routeName(), HEARTBEAT_ALL))
          .subscribe(null, error -> { });
    }

    @Override
    public ServiceName service() {
      return service;
    }

    @Override
    public List<InstanceBody> instances() {
      return body.instances();
    }

    @Override
    public List<String> instanceIds() {
      return instanceIds;
    }

    @Override
    public Duration heartbeatInterval() {
      return Duration.ofMillis(intervalMs);
    }

    @Override
    public boolean isActive() {
      if (!kept()) {
        return false;
      }
      Link now = connections.current();
      synchronized (this) {
        return now != null && link == now && !now.socket().isDisposed();
      }
    }

    @Override
    public Mono<Void> deregister() {
      return Mono.defer(() -> {
        if (!batches.remove(service, this)) {
          return Mono.empty(); // deregistered already, or replaced by a later batch
        }
        if (connections.unreachable()) {
          return Mono.error(new RegistryUnavailableException("no registry server reachable: the batch of " + service
              + " is no longer kept by this client, and the server releases it with the lost connection", null));
        }
        BatchRegistration empty = new BatchRegistration(service.namespace(), service.group(), service.service(),
            List.of());
        return connections.link(requestTimeout).flatMap(link -> sendBatch(link, empty)).then();
      });
    }

    @Override
    public String toString() {
      return "BatchRegistration[" + service + " " + instanceIds.size() + " instance(s)]";
    }
  }

  /** A live registration. */
  final class Active implements io.reactiveregistry.client.Registration {
    private final ServiceName service;
    private final boolean ephemeral;
    /** As registered now: its owner's status changes it. */
    private volatile InstanceBody instance;
    private final String instanceId;
    /** The heartbeat's JSON, encoded once per instance body. */
    private volatile byte[] heartbeat;
    private volatile long intervalMs;
    private volatile long generation;
    private Link link;
    private long nextBeatAt;

    Active(ServiceName service, boolean ephemeral, InstanceBody instance, RegisterResult result) {
      this.service = service;
      this.ephemeral = ephemeral;
      this.instance = instance;
      this.instanceId = result.instanceId();
      this.intervalMs = result.heartbeatIntervalMs();
      this.heartbeat = Wire.encode(new Heartbeat(service.namespace(), service.group(), service.service(), instance));
    }

    @Override
    public boolean ephemeral() {
      return ephemeral;
    }

    String key() {
      return service.namespace() + '\u0000' + service.group() + '\u0000' + service.service() + '\u0000' + instanceId;
    }

    /** Whether this is the registration the client keeps for its instance (not deregistered, not replaced). */
    boolean kept() {
      return active.get(key()) == this;
    }

    Registration body() {
      return new Registration(service.namespace(), service.group(), service.service(), ephemeral, instance);
    }

    @Override
    public InstanceStatus status() {
      return InstanceStatus.of(instance);
    }

    /**
     * The new status is this registration's from now on (a redo registers it), then sent; a failed
     * send leaves it for the next connection's redo.
     */
    @Override
    public Mono<Void> setStatus(InstanceStatus status) {
      return Mono.defer(() -> {
        if (!kept()) {
          return Mono.error(new IllegalStateException(this + " is no longer kept by this client"));
        }
        synchronized (this) {
          instance = status.applyTo(instance);
          heartbeat = Wire.encode(new Heartbeat(service.namespace(), service.group(), service.service(), instance));
        }
        if (connections.unreachable()) {
          return Mono.error(new RegistryUnavailableException("no registry server reachable: " + instanceId
              + " will be registered " + status + " on the next connection", null));
        }
        return connections.link(requestTimeout)
            .flatMap(link -> send(link, body()).doOnNext(result -> keepAlive(link, result.heartbeatIntervalMs())))
            .then();
      });
    }

    /**
     * From now on, heartbeats go on this connection at this interval; persistent instances need
     * none. A late answer from an older connection than the one already in use changes nothing.
     */
    synchronized void keepAlive(Link link, long heartbeatIntervalMs) {
      if (this.link != null && link.generation() < this.link.generation()) {
        return;
      }
      generation = link.generation();
      intervalMs = heartbeatIntervalMs;
      this.link = link;
      nextBeatAt = System.nanoTime() + Duration.ofMillis(heartbeatIntervalMs).toNanos();
    }

    synchronized void beatIfDue(long now) {
      Link on = link;
      if (!ephemeral || on == null || now < nextBeatAt || on.socket().isDisposed()) {
        return;
      }
      nextBeatAt = now + Duration.ofMillis(intervalMs).toNanos();
      on.socket().fireAndForget(Wire.payload(Route.INSTANCE_HEARTBEAT.routeName(), heartbeat))
          .subscribe(null, error -> { });
    }

    @Override
    public ServiceName service() {
      return service;
    }

    @Override
    public InstanceBody instance() {
      return instance;
    }

    @Override
    public String instanceId() {
      return instanceId;
    }

    @Override
    public Duration heartbeatInterval() {
      return Duration.ofMillis(intervalMs);
    }

    /**
     * Kept by this client and, for an ephemeral instance, registered on the connection in use now
     * (false between a lost connection and a successful redo on the next one).
     */
    @Override
    public boolean isActive() {
      if (!kept()) {
        return false;
      }
      if (!ephemeral) {
        return true; // the server keeps it whatever happens to this client's connection
      }
      Link now = connections.current();
      synchronized (this) {
        return now != null && link == now && !now.socket().isDisposed();
      }
    }

    @Override
    public Mono<Boolean> deregister() {
      return Mono.defer(() -> {
        if (!active.remove(key(), this)) {
          return Mono.just(false); // deregistered already, or replaced by a later registration
        }
        if (connections.unreachable()) { // no waiting out the timeout for a server that is not there
          return Mono.error(new RegistryUnavailableException("no registry server reachable: " + instanceId
              + " is no longer kept by this client, and " + (ephemeral
              ? "the server releases it with the lost connection" : "stays registered until deregistered again"),
              null));
        }
        InstanceRef ref = new InstanceRef(service.namespace(), service.group(), service.service(),
            InstanceBody.ref(instance.ip(), instance.port(), instance.cluster()));
        return connections.link(requestTimeout)
            .flatMap(link -> request(link, Route.INSTANCE_DEREGISTER, ref, DeregisterResult.class))
            .map(DeregisterResult::removed);
      });
    }

    @Override
    public String toString() {
      return "Registration[" + service + " " + instanceId + "]";
    }
  }
}
