package io.reactiveregistry.loadtest.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The lean reconnect storm runs against a real server through a real restart: every lean client
 * registers, watches, loses its connection, connects again and sees the whole fleet.
 */
class LeanReconnectStormTest {
  @Test
  void everyLeanClientIsBackWithTheWholeFleetAfterTheRestart() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = System.out;
    int exit;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      exit = new CommandLine(new ClientBenchmarks()).execute("reconnect-storm", "--lean", "--count", "60",
          "--port", String.valueOf(port));
    } finally {
      System.setOut(out);
    }
    String printed = captured.toString(StandardCharsets.UTF_8);
    out.print(printed);

    assertThat(exit).isZero();
    assertThat(printed).contains("60 lean clients registered and watching; restarting the server")
        .contains("all 60 registrations back").contains("all 60 views correct (60 instances, not stale)")
        .contains("(60 seen)");
  }
}
