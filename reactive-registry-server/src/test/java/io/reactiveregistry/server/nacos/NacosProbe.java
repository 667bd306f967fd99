package io.reactiveregistry.server.nacos;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One Nacos gRPC request by hand, for tests outside this package: its answer's type and JSON. */
public final class NacosProbe {
  private NacosProbe() {}

  public record Answer(String type, JsonNode body) {}

  public static Answer request(String host, int grpcPort, String type, String json) throws Exception {
    ManagedChannel channel = NettyChannelBuilder.forAddress(host, grpcPort).usePlaintext().build();
    try {
      Payload answer = ClientCalls.blockingUnaryCall(channel, NacosGrpcServer.REQUEST,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
          new Payload(type, "", Map.of(), json.getBytes(StandardCharsets.UTF_8)));
      return new Answer(answer.type(), NacosJson.MAPPER.readTree(answer.body()));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
