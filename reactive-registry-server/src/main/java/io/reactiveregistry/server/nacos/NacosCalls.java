package io.reactiveregistry.server.nacos;

import io.grpc.stub.ServerCallStreamObserver;
import java.util.Collection;
import reactor.core.publisher.Mono;

/**
 * What the gRPC port hands its calls to: the door's {@link NacosRequests}, or a bench's floor that
 * answers the same calls with nothing behind them (so the port's own cost can be told apart from
 * the registry's).
 */
interface NacosCalls {

  /** One {@code Request.request} call: its answer. */
  Mono<Payload> request(NacosConnection connection, Payload request);

  /** A payload the client sent on its {@code requestBiStream} stream. */
  void streamed(NacosConnection connection, Payload payload, ServerCallStreamObserver<Payload> out);

  /** The connection, or its stream, ended: release what it owned, once. */
  void closed(NacosConnection connection);

  /**
   * Called every second or so with the open connections: ask the quiet ones whether they are
   * alive; release what closed connections told to move still own and nobody took over in time.
   */
  void tick(Collection<NacosConnection> connections);
}
