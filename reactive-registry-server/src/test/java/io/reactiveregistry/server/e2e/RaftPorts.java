package io.reactiveregistry.server.e2e;

import io.reactiveregistry.server.storage.RatisStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.util.TimeDuration;
import org.jspecify.annotations.Nullable;

/** Speaks Raft to a member's Raft port the way a peer would, as a test's outsider. */
final class RaftPorts {
  private RaftPorts() {}

  /**
   * Asks the member {@code peerId} at {@code address} about the registry's group, presenting
   * {@code certificate} ({@code [certificate, key]}; none when null) and trusting {@code ca}
   * (plain TCP when null). Fails with an {@link IOException} when the port refuses.
   */
  static String groupInfo(String address, String peerId, Path @Nullable [] certificate,
      @Nullable Path ca) throws IOException {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(3, TimeUnit.SECONDS));
    Parameters parameters = new Parameters();
    if (ca != null) {
      GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(
          certificate == null ? null : certificate[1].toFile(), certificate == null ? null : certificate[0].toFile(),
          ca.toFile(), certificate != null));
    }
    RaftPeer peer = RaftPeer.newBuilder().setId(peerId).setAddress(address).build();
    try (RaftClient client = RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(RaftGroup.valueOf(RatisStore.GROUP_ID, peer))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build()) {
      return client.getGroupManagementApi(RaftPeerId.valueOf(peerId)).info(RatisStore.GROUP_ID).toString();
    } catch (StatusRuntimeException e) {
      // gRPC's refusals (a failed handshake) arrive unchecked on this path.
      throw new IOException(e.getStatus().toString(), e);
    }
  }
}
