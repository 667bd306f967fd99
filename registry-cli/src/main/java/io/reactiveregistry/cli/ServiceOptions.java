package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Protocol;
import picocli.CommandLine.Option;

/** {@code --namespace} and {@code --group}, for the subcommands that name a service. */
final class ServiceOptions {
  @Option(names = {"-n", "--namespace"}, defaultValue = Protocol.DEFAULT_NAMESPACE,
      description = "Namespace. Default: ${DEFAULT-VALUE}")
  String namespace;

  @Option(names = {"-g", "--group"}, defaultValue = Protocol.DEFAULT_GROUP,
      description = "Group. Default: ${DEFAULT-VALUE}")
  String group;
}
