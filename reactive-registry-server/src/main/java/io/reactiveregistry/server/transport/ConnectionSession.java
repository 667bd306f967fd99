package io.reactiveregistry.server.transport;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.push.DrainLoop;
import io.reactiveregistry.server.request.Answer;
import io.reactiveregistry.server.request.RequestLayer;
import io.reactiveregistry.server.request.Session;
import io.reactiveregistry.server.request.Watcher;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Principal;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.DefaultPayload;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One client connection: the responder for its requests, which it hands to the {@link RequestLayer}
 * with the caller's principal; its {@link Session} owns the ephemeral instances it registers.
 * {@link #release()} is called once, when the connection closes.
 */
final class ConnectionSession implements RSocket {
  private static final Logger log = LoggerFactory.getLogger(ConnectionSession.class);

  private final Session session;
  private final RequestLayer layer;
  private final ServerLimits limits;
  private final ServerMeters meters;
  private final AtomicInteger subscriptions = new AtomicInteger();
  private final AtomicBoolean released = new AtomicBoolean();
  private final Access access;
  /** Where the connection comes from: failed authentications are counted by address. */
  private final SocketAddress remote;
  /** Where this connection's subscriptions are written from; null: the thread of each request. */
  private final @Nullable DrainLoop drainLoop;
  /** Who the SETUP's token speaks for, as the token file says now; null without one. */
  private volatile @Nullable Principal principal;

  ConnectionSession(Session session, RequestLayer layer, ServerLimits limits, ServerMeters meters, Access access,
      @Nullable Principal principal, SocketAddress remote, @Nullable DrainLoop drainLoop) {
    this.remote = remote;
    this.drainLoop = drainLoop;
    this.access = access;
    this.principal = principal;
    this.session = session;
    this.layer = layer;
    this.limits = limits;
    this.meters = meters;
  }

  /**
   * The connection's drain loop; without one (a connection whose channel is not known), the event
   * loop the request arrived on, which is the connection's own.
   */
  private @Nullable DrainLoop drainLoop() {
    if (drainLoop != null) {
      return drainLoop;
    }
    EventExecutor eventLoop = ThreadExecutorMap.currentExecutor();
    return eventLoop == null ? null : DrainLoop.of(eventLoop);
  }

  Session session() {
    return session;
  }

  /** How many subscriptions (of views and of the audit trail) it holds open now. */
  int openSubscriptions() {
    return subscriptions.get();
  }

  /** Who its SETUP token speaks for now; null without one. */
  @Nullable Principal principal() {
    return principal;
  }

  /** The SETUP token's principal after the token file changed (its permissions may have). */
  void principal(Principal now) {
    this.principal = now;
  }

  /**
   * Who a request acts for: its own bearer token's principal, else its connection's (null: nobody).
   * A request's own token is checked like a SETUP's, guessing limit included.
   */
  private @Nullable Principal principalOf(RouteResolver.Resolved request) {
    if (!access.required()) {
      return null;
    }
    return request.bearer() == null ? principal : access.authenticate(request.bearer(), remote).principal();
  }

  @Override
  public Mono<Payload> requestResponse(Payload payload) {
    long start = System.nanoTime();
    Route route = null;
    try {
      RouteResolver.Resolved request = RouteResolver.resolveWithToken(payload, Interaction.REQUEST_RESPONSE);
      route = request.route();
      checkSize(payload);
      Mono<Answer> answer = layer.call(session, principalOf(request), route, payload.sliceData(), request.trace());
      return answer.flatMap(ConnectionSession::framed);
    } catch (RuntimeException | Error e) { // an Error too: only the contract's JSON reaches a client
      return Mono.error(refused(route, start, e));
    } finally {
      payload.release();
    }
  }

  /** An answer as RSocket carries it: the JSON as the payload's data, a refusal as an APPLICATION_ERROR. */
  private static Mono<Payload> framed(Answer answer) {
    if (answer instanceof Answer.Served served) {
      return Mono.just(DefaultPayload.create(served.json()));
    }
    return Mono.error(ErrorMapping.toWire(((Answer.Refused) answer).error().body()));
  }

  /**
   * The wire error for a request refused here, before the request layer took it (no route, a body
   * too large, a token not valid), counted by route and code.
   */
  private Throwable refused(@Nullable Route route, long start, Throwable error) {
    ErrorBody body = ErrorMapping.body(error);
    ErrorCode code = ErrorCode.valueOf(body.code());
    if (route == null) {
      meters.error(code);
    } else {
      meters.request(route, start, code);
    }
    return ErrorMapping.toWire(body);
  }

  @Override
  public Flux<Payload> requestStream(Payload payload) {
    long start = System.nanoTime();
    Route route = null;
    try {
      RouteResolver.Resolved request = RouteResolver.resolveWithToken(payload, Interaction.REQUEST_STREAM);
      route = request.route();
      checkSize(payload);
      Principal caller = principalOf(request);
      if (subscriptions.incrementAndGet() > limits.maxSubscriptionsPerConnection()) {
        subscriptions.decrementAndGet();
        throw new EdgeRefusal(ErrorCode.LIMIT_EXCEEDED, "this connection already has "
            + limits.maxSubscriptionsPerConnection() + " open subscriptions, the most allowed");
      }
      Flux<byte[]> events;
      try {
        // Called on the connection's event loop: its events are written from there.
        events = layer.stream(new Watcher(session.label(), "rsocket"), caller, route, payload.sliceData(),
            drainLoop());
      } catch (RuntimeException | Error e) { // refused, and counted, by the layer
        subscriptions.decrementAndGet();
        return Flux.error(ErrorMapping.toWire(e));
      }
      return events.map(SharedEventPayloads::of)
          .onErrorMap(error -> !(error instanceof ApplicationErrorException), ErrorMapping::toWire)
          .doFinally(signal -> subscriptions.decrementAndGet());
    } catch (RuntimeException | Error e) {
      return Flux.error(refused(route, start, e));
    } finally {
      payload.release();
    }
  }

  @Override
  public Mono<Void> fireAndForget(Payload payload) {
    try {
      RouteResolver.Resolved request = RouteResolver.resolveWithToken(payload, Interaction.FIRE_AND_FORGET);
      checkSize(payload);
      // Fire-and-forget cannot be answered: the layer counts a heartbeat it could not apply.
      layer.beat(session, principalOf(request), payload.sliceData());
    } catch (RuntimeException | Error e) {
      layer.countDroppedHeartbeat();
      log.debug("dropped fire-and-forget from {}: {}", session.label(), ErrorMapping.body(e).message());
    } finally {
      payload.release();
    }
    return Mono.empty();
  }

  @Override
  public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
    return Flux.from(payloads).take(1).flatMap(first -> {
      try {
        RouteResolver.resolve(first, Interaction.REQUEST_CHANNEL);
        return Flux.<Payload>empty(); // unreachable: no route is request-channel
      } catch (RuntimeException e) {
        return Flux.<Payload>error(ErrorMapping.toWire(e));
      } finally {
        first.release();
      }
    });
  }

  @Override
  public Mono<Void> metadataPush(Payload payload) {
    payload.release();
    return Mono.empty();
  }

  /** Releases every ephemeral instance the connection still owns; idempotent. */
  int release() {
    if (!released.compareAndSet(false, true)) {
      return 0;
    }
    return layer.release(session);
  }

  private void checkSize(Payload payload) {
    int size = payload.data().readableBytes();
    if (size > limits.maxPayloadBytes()) {
      throw new EdgeRefusal(ErrorCode.LIMIT_EXCEEDED,
          "the request body is " + size + " bytes; the most accepted is " + limits.maxPayloadBytes());
    }
  }
}
