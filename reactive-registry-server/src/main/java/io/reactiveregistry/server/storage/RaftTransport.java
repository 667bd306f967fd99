package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.tls.TlsFiles;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;
import org.jspecify.annotations.Nullable;

/**
 * How a node's Raft port is served and its peers' reached. Plain TCP uses Ratis's Netty RPC;
 * with the node's TLS files, its gRPC RPC, because the Netty RPC has no TLS. The Netty RPC is
 * kept for plain links because it is the faster of the two here (three members on one machine:
 * 4,285 against 3,655 durable registrations/s, a lone write's p50 94 against 156 ms; see
 * {@code load-tests/RESULTS.md}). Every member of a cluster must be given the same choice.
 *
 * <p>Over TLS each member serves its Raft port with its certificate and dials the others
 * presenting the same certificate. With {@code --tls-client-ca-file} the links are mutual: a
 * member accepts a peer, and trusts a peer's port, only with a certificate signed by that CA.
 * Without it a peer's port is checked against the JVM's trust store and nobody is asked for a
 * certificate. The files are read when the node starts: unlike the client-facing ports, the Raft
 * port serves a renewed certificate after a restart.
 */
final class RaftTransport {
  private RaftTransport() {}

  /**
   * Sets the RPC and the address the Raft port binds in {@code properties}; returns the
   * parameters that carry the TLS settings (empty for plain TCP).
   */
  static Parameters configure(RaftProperties properties, String host, int port, @Nullable TlsFiles tls) {
    Parameters parameters = new Parameters();
    RaftConfigKeys.Rpc.setType(properties, rpc(tls));
    if (tls == null) {
      NettyConfigKeys.Server.setHost(properties, host);
      NettyConfigKeys.Server.setPort(properties, port);
    } else {
      GrpcConfigKeys.Server.setHost(properties, host);
      GrpcConfigKeys.Server.setPort(properties, port);
      GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(tls.key().toFile(), tls.certificate().toFile(),
          tls.clientCa() == null ? null : tls.clientCa().toFile(), tls.clientCa() != null));
    }
    return parameters;
  }

  /** The RPC {@link #configure} chooses. */
  static SupportedRpcType rpc(@Nullable TlsFiles tls) {
    return tls == null ? SupportedRpcType.NETTY : SupportedRpcType.GRPC;
  }

  /** Whether the Raft port accepts only peers with a certificate from the cluster's CA. */
  static boolean authenticatesPeers(@Nullable TlsFiles tls) {
    return tls != null && tls.clientCa() != null;
  }
}
