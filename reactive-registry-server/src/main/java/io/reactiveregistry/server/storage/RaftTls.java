package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.tls.TlsFiles;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * The TLS of a cluster's Raft links, from the node's own TLS files: each member serves its Raft
 * port with its certificate and dials the others presenting the same certificate. With
 * {@code --tls-client-ca-file} the links are mutual: a member accepts a peer, and trusts a peer's
 * port, only with a certificate signed by that CA. Without it they are encrypted but a peer's
 * certificate is checked against the JVM's trust store and nobody is asked for one, so anyone who
 * reaches a Raft port could speak Raft to it.
 *
 * <p>The files are read when the node starts; unlike the client-facing ports, which pick up a
 * renewed certificate at once, a member serves a renewed certificate on its Raft port after a
 * restart (a rolling restart of the members).
 */
final class RaftTls {
  private RaftTls() {}

  static GrpcTlsConfig of(TlsFiles files) {
    return new GrpcTlsConfig(files.key().toFile(), files.certificate().toFile(),
        files.clientCa() == null ? null : files.clientCa().toFile(), files.clientCa() != null);
  }

  /** Whether members ask each other for certificates. */
  static boolean mutual(TlsFiles files) {
    return files.clientCa() != null;
  }
}
