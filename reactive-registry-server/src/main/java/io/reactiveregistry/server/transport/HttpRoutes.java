package io.reactiveregistry.server.transport;

import io.netty.buffer.ByteBuf;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.Outcome.HeartbeatOutcome;
import io.reactiveregistry.server.core.Owner;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.reactiveregistry.server.errors.ErrorTable;
import io.reactiveregistry.server.errors.WireError;
import io.reactiveregistry.server.security.Principal;
import io.reactiveregistry.server.wire.CommandDecoder;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The contract's routes for callers without RSocket, over HTTP: the same handlers, bodies and
 * refusals as on an RSocket connection, each answer a status and a JSON body.
 *
 * <p>What HTTP callers register belongs to no connection: {@link #OWNER} stands for all of them
 * and never closes, so an ephemeral instance registered over HTTP lives by its heartbeats, as
 * Eureka's instances live by their renewals, and is removed when they stop. A heartbeat over HTTP
 * must therefore name its instance (one owner holds every HTTP caller's instances), and it is
 * answered: a heartbeat for an instance that was deregistered says so, so that the caller
 * registers again.
 */
public final class HttpRoutes {
  /** The owner of the ephemeral instances registered over HTTP. */
  public static final Owner OWNER = Owner.shared(-1, "http");

  /** An answer: the HTTP status and the JSON body (the answer, or the contract's error). */
  public record Reply(int status, byte[] json) {}

  private final RequestHandlers handlers;

  HttpRoutes(RequestHandlers handlers) {
    this.handlers = handlers;
  }

  /** Whether {@code route} may be called with a POST: request-response routes, and heartbeats. */
  public static boolean callable(Route route) {
    return route.interaction() == Interaction.REQUEST_RESPONSE || route == Route.INSTANCE_HEARTBEAT;
  }

  /** Calls a {@link #callable} route with {@code data} (the contract's JSON body). */
  public Mono<Reply> call(Route route, @Nullable Principal principal, ByteBuf data) {
    try {
      if (route == Route.INSTANCE_HEARTBEAT) {
        return Mono.just(heartbeat(principal, data));
      }
      if (!CommandDecoder.decodes(route)) {
        return Mono.just(reply(handlers.read(principal, route, data)));
      }
      CompletableFuture<Outcome> outcome = handlers.command(OWNER, principal, route, data);
      return Mono.fromFuture(outcome, true)
          .map(done -> reply(RequestHandlers.answer(done)))
          .onErrorResume(error -> Mono.just(refusal(ErrorTable.of(error))));
    } catch (RuntimeException e) {
      return Mono.just(refusal(ErrorTable.of(e)));
    }
  }

  /** A {@code service.subscribe} stream: the encoded events, as an RSocket subscriber receives them. */
  public Flux<byte[]> subscribe(@Nullable Principal principal, ByteBuf query) {
    return handlers.stream(principal, Route.SERVICE_SUBSCRIBE, query, null);
  }

  /** An {@code admin.trace} stream: the audit trail's encoded events (admin permission, as over RSocket). */
  public Flux<byte[]> trace(@Nullable Principal principal, ByteBuf query) {
    return handlers.stream(principal, Route.ADMIN_TRACE, query, null);
  }

  private Reply heartbeat(@Nullable Principal principal, ByteBuf data) {
    Command heartbeat = CommandDecoder.decode(Route.INSTANCE_HEARTBEAT, OWNER, data);
    if (heartbeat instanceof Command.HeartbeatAll) {
      // One owner holds every HTTP caller's instances: "all of mine" would be all of theirs.
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "instance is required: over HTTP a heartbeat names the "
          + "instance it keeps alive (service, and instance's ip, port and cluster)");
    }
    Outcome outcome = handlers.beat(principal, heartbeat);
    if (outcome instanceof Outcome.Refused refused) {
      return refusal(ErrorTable.of(refused));
    }
    HeartbeatOutcome beat = (HeartbeatOutcome) outcome;
    return switch (beat) {
      case REFRESHED, RECREATED -> new Reply(200, JsonCodec.json().encode(Map.of("outcome", beat.name())));
      case IGNORED_PERSISTENT -> refusal(ErrorTable.of(new EdgeRefusal(ErrorCode.INVALID_PARAM,
          "the instance is persistent: the server checks its health itself, it takes no heartbeats")));
      case IGNORED_NOT_OWNER -> refusal(ErrorTable.of(new EdgeRefusal(ErrorCode.FORBIDDEN,
          "the instance was registered on an RSocket connection, which keeps it alive")));
      case IGNORED_DEREGISTERED -> refusal(ErrorTable.of(new EdgeRefusal(ErrorCode.NOT_FOUND,
          "the instance was deregistered: register it again")));
    };
  }

  private static Reply reply(RequestHandlers.Answer answer) {
    if (answer instanceof RequestHandlers.Answer.Json encoded) {
      return new Reply(200, encoded.json());
    }
    if (answer instanceof RequestHandlers.Answer.Body body) {
      return new Reply(200, JsonCodec.json().encode(body.body()));
    }
    return refusal(((RequestHandlers.Answer.Refusal) answer).error());
  }

  /** The reply to a request refused before it reached a route (a body too large, a bad token). */
  public static Reply refusal(Throwable error) {
    return refusal(ErrorTable.of(error));
  }

  private static Reply refusal(WireError error) {
    return new Reply(error.httpStatus(), JsonCodec.json().encode(error.body()));
  }
}
