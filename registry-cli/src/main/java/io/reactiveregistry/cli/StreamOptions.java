package io.reactiveregistry.cli;

import picocli.CommandLine.Option;

/** {@code --json} and {@code --take}, for the subcommands that follow a stream (watch, watch-catalog, trace). */
final class StreamOptions {
  @Option(names = "--json", description = "Each event as the server sends it")
  boolean json;

  @Option(names = "--take", description = "Stop after this many events")
  Long take;
}
