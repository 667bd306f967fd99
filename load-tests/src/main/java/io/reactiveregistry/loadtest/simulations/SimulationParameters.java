package io.reactiveregistry.loadtest.simulations;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A simulation's parameters as a picocli command: declared by the simulation itself (what it
 * reads from {@link Params}, with its defaults), so that a misspelt one or a value of the wrong
 * type is refused by picocli with its usual message, and {@code <Simulation> --help} lists them.
 */
public final class SimulationParameters {
  private SimulationParameters() {}

  /** What {@code simulation} reads: built once with no parameters given, which only declares them. */
  public static List<Params.Declaration> of(String simulation) {
    Params probe = new Params(Map.of());
    BuiltIn.build(simulation, probe);
    return probe.declared();
  }

  static CommandSpec spec(String simulation) {
    CommandSpec spec = CommandSpec.create().name(simulation);
    spec.usageMessage().description("Parameters of " + simulation + " (after the simulation's name).");
    for (Params.Declaration declared : of(simulation)) {
      OptionSpec.Builder option = OptionSpec.builder("--" + declared.name()).type(declared.type())
          .paramLabel("<" + declared.type().getSimpleName() + ">");
      if (declared.defaultValue() != null) {
        option.description("Default: " + declared.defaultValue());
      } else {
        option.description("Optional: an assertion when given");
      }
      spec.addOption(option.build());
    }
    spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("These parameters.").build());
    return spec;
  }

  /**
   * The given parameters, by name, as the simulation will read them.
   *
   * @throws CommandLine.ParameterException for one the simulation does not take, or a bad value
   */
  public static Map<String, String> parse(String simulation, List<String> args) {
    CommandLine command = new CommandLine(spec(simulation));
    ParseResult parsed = command.parseArgs(args.toArray(String[]::new));
    Map<String, String> given = new LinkedHashMap<>();
    for (OptionSpec option : parsed.matchedOptions()) {
      if (!option.usageHelp()) {
        given.put(option.longestName().substring(2), option.originalStringValues().get(0));
      }
    }
    return given;
  }

  public static void usage(String simulation, PrintStream out) {
    new CommandLine(spec(simulation)).usage(out);
  }

  /** One line per built-in simulation: its name and its parameters with their defaults. */
  public static String summary() {
    StringBuilder lines = new StringBuilder();
    for (String simulation : BuiltIn.names()) {
      lines.append(String.format("  %-22s", simulation));
      for (Params.Declaration declared : of(simulation)) {
        if (declared.defaultValue() != null) {
          lines.append(" --").append(declared.name()).append(" [").append(declared.defaultValue()).append(']');
        }
      }
      lines.append('\n');
    }
    return lines.toString();
  }
}
