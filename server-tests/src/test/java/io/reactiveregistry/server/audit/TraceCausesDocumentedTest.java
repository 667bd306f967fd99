package io.reactiveregistry.server.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.ChangeCause;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every cause the server can put in the audit trail is explained in the contract and named in the README. */
class TraceCausesDocumentedTest {
  @Test
  void everyCauseIsInTheContractsTableAndInTheReadme() throws IOException {
    String contract = Files.readString(Path.of("../docs/protocol.md"));
    String readme = Files.readString(Path.of("../README.md"));
    for (ChangeCause cause : ChangeCause.values()) {
      assertThat(contract).as("docs/protocol.md explains %s", cause).contains("| `" + cause.name() + "` |");
      assertThat(readme).as("README.md names %s", cause).contains("`" + cause.name() + "`");
    }
    assertThat(contract).contains("{\"cause\": \"GAP\", \"missed\": n}");
  }
}
