package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The README's shell examples, as the tests that run them read and run them. */
final class ReadmeShell {
  private ReadmeShell() {}

  /** The lines of the first {@code sh} block under the README's section {@code heading} ({@code ## ...}). */
  static List<String> firstBlockUnder(String heading) throws IOException {
    String readme = Files.readString(Path.of("../README.md"));
    int section = readme.indexOf("\n" + heading + "\n");
    assertThat(section).as("the README's section " + heading).isNotNegative();
    int open = readme.indexOf("```sh\n", section);
    return readme.substring(open + 6, readme.indexOf("\n```", open)).lines().toList();
  }

  /** What a line printed (standard output and error together) and its exit code. */
  record Ran(String output, int exit) {}

  /** Runs a line with bash after {@code prelude} (the block's variable). */
  static Ran run(String prelude, String line) throws IOException, InterruptedException {
    Process shell = new ProcessBuilder("bash", "-c", prelude + "; " + line).redirectErrorStream(true).start();
    String out = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(shell.waitFor(10, TimeUnit.SECONDS)).as(line).isTrue();
    return new Ran(out, shell.exitValue());
  }
}
