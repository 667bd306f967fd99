package io.reactiveregistry.server.transport;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ErrorBody;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.metrics.ServerMeters;
import io.reactiveregistry.server.push.DrainLoop;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.security.Access;
import io.reactiveregistry.server.security.Principal;
import io.reactiveregistry.server.wire.CommandDecoder;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.DefaultPayload;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One client connection: the responder for its requests, and the owner of the ephemeral
 * instances it registers. {@link #release()} is called once, when the connection closes.
 */
final class ConnectionSession implements RSocket {
  private static final Logger log = LoggerFactory.getLogger(ConnectionSession.class);

  private final Owner owner;
  private final RequestHandlers handlers;
  private final RegistryRuntime runtime;
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

  ConnectionSession(Owner owner, RequestHandlers handlers, RegistryRuntime runtime, ServerLimits limits,
      ServerMeters meters, Access access, @Nullable Principal principal, SocketAddress remote,
      @Nullable DrainLoop drainLoop) {
    this.remote = remote;
    this.drainLoop = drainLoop;
    this.access = access;
    this.principal = principal;
    this.owner = owner;
    this.handlers = handlers;
    this.runtime = runtime;
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

  Owner owner() {
    return owner;
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

  /** Who a request acts for: its own bearer token's principal, else its connection's (null: nobody). */
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
      Principal caller = principalOf(request);
      if (!CommandDecoder.decodes(route)) {
        return reply(route, start, handlers.read(caller, route, payload.sliceData()));
      }
      CompletableFuture<Outcome> outcome = handlers.command(owner, caller, route, payload.sliceData());
      if (outcome.isDone()) { // in memory only: answered at once
        return reply(route, start, RequestHandlers.answer(outcome.join())); // join rethrows, caught below
      }
      Route answered = route;
      return Mono.fromFuture(outcome, true)
          .onErrorMap(error -> refused(answered, start, error))
          .flatMap(value -> reply(answered, start, RequestHandlers.answer(value)));
    } catch (RuntimeException | Error e) { // an Error too: only the contract's JSON reaches a client
      return Mono.error(refused(route, start, e));
    } finally {
      payload.release();
    }
  }

  /** The payload of an answer, or the error of a refusal, counted by route (and code). */
  private Mono<Payload> reply(Route route, long start, RequestHandlers.Answer answer) {
    if (answer instanceof RequestHandlers.Answer.Json encoded) {
      return answered(route, start, encoded.json());
    }
    if (answer instanceof RequestHandlers.Answer.Body body) {
      return answered(route, start, JsonCodec.json().encode(body.body()));
    }
    WireError error = ((RequestHandlers.Answer.Refusal) answer).error();
    meters.request(route, start, error.code());
    return Mono.error(ErrorMapping.toWire(error.body()));
  }

  private Mono<Payload> answered(Route route, long start, byte[] json) {
    meters.request(route, start, null);
    return Mono.just(DefaultPayload.create(json));
  }

  /** The wire error for a refused request, counted by route and code. */
  private Throwable refused(Route route, long start, Throwable error) {
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
      if (subscriptions.incrementAndGet() > limits.maxSubscriptionsPerConnection()) {
        subscriptions.decrementAndGet();
        throw new EdgeRefusal(ErrorCode.LIMIT_EXCEEDED, "this connection already has "
            + limits.maxSubscriptionsPerConnection() + " open subscriptions, the most allowed");
      }
      try {
        // Called on the connection's event loop: its events are written from there.
        Flux<Payload> stream = handlers.stream(principalOf(request), route, payload.sliceData(), drainLoop())
            .map(DefaultPayload::create)
            .onErrorMap(error -> !(error instanceof ApplicationErrorException), ErrorMapping::toWire)
            .doFinally(signal -> subscriptions.decrementAndGet());
        meters.request(route, start, null);
        return stream;
      } catch (RuntimeException | Error e) {
        subscriptions.decrementAndGet();
        throw e;
      }
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
      handlers.beat(principalOf(request), CommandDecoder.decode(request.route(), owner, payload.sliceData()));
    } catch (RuntimeException | Error e) {
      // Fire-and-forget cannot be answered: an invalid heartbeat is dropped and counted.
      handlers.countDroppedHeartbeat();
      log.debug("dropped fire-and-forget from {}: {}", owner.label(), ErrorMapping.body(e).message());
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
    return ((Outcome.Counted) runtime.execute(new Command.Release(owner))).count();
  }

  private void checkSize(Payload payload) {
    int size = payload.data().readableBytes();
    if (size > limits.maxPayloadBytes()) {
      throw new EdgeRefusal(ErrorCode.LIMIT_EXCEEDED,
          "the request body is " + size + " bytes; the most accepted is " + limits.maxPayloadBytes());
    }
  }
}
