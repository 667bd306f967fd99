package io.reactiveregistry.client;

import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.rules.Names;

/** A service's full name. {@link #of(String)} uses the default namespace and group. */
public record ServiceName(String namespace, String group, String service) {

  /** Checks the naming rule, with the server's wording. */
  public ServiceName {
    Names.require("namespace", namespace);
    Names.require("group", group);
    Names.require("service", service);
  }

  public static ServiceName of(String service) {
    return new ServiceName(Protocol.DEFAULT_NAMESPACE, Protocol.DEFAULT_GROUP, service);
  }

  @Override
  public String toString() {
    return namespace + "/" + group + "/" + service;
  }
}
