package io.reactiveregistry.server;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where a setting comes from, in order: the command-line flag (picocli itself), then the
 * environment variable {@code REGISTRY_<FLAG>} ({@code --max-payload-bytes} is
 * {@code REGISTRY_MAX_PAYLOAD_BYTES}), then the optional properties file ({@code max-payload-bytes=...}),
 * then the built-in default ({@link SettingDefaults}, read from the {@code DEFAULTS} records).
 */
final class ConfigSources implements CommandLine.IDefaultValueProvider {
  static final String FILE_FLAG = "--config-file";
  static final String FILE_VARIABLE = "REGISTRY_CONFIG_FILE";

  private static final Map<String, String> BUILT_IN = SettingDefaults.byFlag();

  private final Map<String, String> environment;
  private final Properties file;

  ConfigSources(Map<String, String> environment, Properties file) {
    this.environment = environment;
    this.file = file;
  }

  /** The sources for these arguments: the file is named by {@code --config-file} or {@code REGISTRY_CONFIG_FILE}. */
  static ConfigSources from(String[] args, Map<String, String> environment) {
    String path = environment.get(FILE_VARIABLE);
    List<String> list = List.of(args);
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i).equals(FILE_FLAG) && i + 1 < list.size()) {
        path = list.get(i + 1);
      } else if (list.get(i).startsWith(FILE_FLAG + "=")) {
        path = list.get(i).substring(FILE_FLAG.length() + 1);
      }
    }
    Properties file = new Properties();
    if (path != null) {
      try (Reader reader = Files.newBufferedReader(Path.of(path))) {
        file.load(reader);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the configuration file " + path, e);
      }
    }
    return new ConfigSources(environment, file);
  }

  static String variable(String flag) {
    return "REGISTRY_" + flag.replaceFirst("^--", "").replace('-', '_').toUpperCase(Locale.ROOT);
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    if (!(argSpec instanceof OptionSpec option) || option.longestName().equals(FILE_FLAG)) {
      return null;
    }
    String flag = option.longestName();
    String fromEnvironment = environment.get(variable(flag));
    if (fromEnvironment != null) {
      return fromEnvironment;
    }
    String fromFile = file.getProperty(flag.replaceFirst("^--", ""));
    return fromFile != null ? fromFile : BUILT_IN.get(flag);
  }
}
