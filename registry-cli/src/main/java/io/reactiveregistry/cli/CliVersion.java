package io.reactiveregistry.cli;

import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the version in the jar's manifest. */
final class CliVersion implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String version = RegistryCli.class.getPackage().getImplementationVersion();
    return new String[] {"registry-cli " + (version == null ? "(development build)" : version)};
  }
}
