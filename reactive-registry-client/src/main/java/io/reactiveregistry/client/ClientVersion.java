package io.reactiveregistry.client;

/** Sent in the SETUP data, to label the connection on the server. */
final class ClientVersion {
  static final String VERSION = "0.2.0";

  private ClientVersion() {}
}
