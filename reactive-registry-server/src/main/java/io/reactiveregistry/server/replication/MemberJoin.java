package io.reactiveregistry.server.replication;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.protocol.message.MemberChange;
import io.reactiveregistry.protocol.message.MemberList;
import io.reactiveregistry.server.cluster.ClusterConfig;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.ByteBufPayload;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * A new member started with {@code --join}: it asks a member of the running cluster to add it
 * ({@code admin.members.add}, as this node, with its peer token), retrying while that member
 * cannot be reached, and answers the membership it was added to. The change itself is Ratis's:
 * the answer comes once the new member has caught up and the membership is committed.
 */
public final class MemberJoin {
  private static final Logger log = LoggerFactory.getLogger(MemberJoin.class);
  private static final JsonCodec json = JsonCodec.json();

  private MemberJoin() {}

  public static Mono<List<ClusterConfig.Member>> ask(String address, ClusterConfig.Member self, PeerAccess access,
      String version, Duration timeout) {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon).replace("[", "").replace("]", "");
    int port = Integer.parseInt(address.substring(colon + 1));
    return Mono.defer(() -> {
      log.info("asking the member at {} to add {} to its cluster", address, self);
      return access.connect(host, port, "member " + self.id() + " joining", version, timeout, timeout.multipliedBy(2))
          .flatMap(socket -> socket.requestResponse(ByteBufPayload.create(
                  Unpooled.wrappedBuffer(json.encode(MemberChange.add(self.toString()))),
                  RouteMetadata.encode(ByteBufAllocator.DEFAULT, Route.ADMIN_MEMBERS_ADD.routeName())))
              .doFinally(signal -> socket.dispose()));
    })
        .map(payload -> {
          try {
            return json.decode(payload.sliceData(), MemberList.class);
          } finally {
            payload.release();
          }
        })
        .map(list -> list.members().stream().map(entry -> ClusterConfig.member("members", entry)).toList())
        // A refusal (a wrong token, a change the cluster would not make) is final; not being
        // reachable yet is not.
        .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofMillis(200)).maxBackoff(Duration.ofSeconds(2))
            .filter(error -> !(error instanceof ApplicationErrorException))
            .doBeforeRetry(signal -> log.info("the member at {} cannot add {} yet: {}", address, self.id(),
                signal.failure().toString())))
        .timeout(timeout)
        .doOnNext(members -> log.info("added to the cluster: its members are {}", members));
  }
}
