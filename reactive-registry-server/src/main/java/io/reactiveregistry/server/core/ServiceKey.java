package io.reactiveregistry.server.core;

import io.reactiveregistry.protocol.rules.Names;

/** A service's identity: namespace, group and name, all validated. */
public record ServiceKey(String namespace, String group, String service) {
  public static final String DEFAULT_NAMESPACE = "public";
  public static final String DEFAULT_GROUP = "DEFAULT_GROUP";

  /** Fills the defaults and checks the naming rule. */
  public static ServiceKey of(String namespace, String group, String service) {
    return Contract.check(() -> new ServiceKey(
        Names.orDefault("namespace", namespace, DEFAULT_NAMESPACE),
        Names.orDefault("group", group, DEFAULT_GROUP),
        Names.require("service", service)));
  }

  @Override
  public String toString() {
    return namespace + "/" + group + "/" + service;
  }
}
