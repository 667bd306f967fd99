package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.message.Query;
import java.util.List;
import picocli.CommandLine.Option;

/** Which part of a service: {@code --cluster}, {@code --healthy-only} and {@code --selector}, for instances and watch. */
final class ViewOptions {
  @Option(names = "--cluster", description = "Only this cluster (repeatable)")
  List<String> clusters = List.of();

  @Option(names = "--healthy-only", description = "The healthy-only view (with the service's protection rule)")
  boolean healthyOnly;

  @Option(names = {"--selector", "-l"}, paramLabel = "<selector>",
      description = "Only the instances whose metadata this selects, e.g. 'version=v2,zone in (a,b)' (the contract's "
          + "Selectors)")
  String selector;

  Query query(ServiceOptions names, String service) {
    return new Query(names.namespace, names.group, service, clusters, healthyOnly, selector);
  }
}
