package io.reactiveregistry.protocol.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The contract a user reads is in the repository, linked from the README, and names every route
 * and error code the {@code protocol} module defines; every relative link of the README and of
 * the contract leads to a file (and heading) that exists.
 */
class ContractDocumentTest {
  private static final Path ROOT = Path.of("..");
  private static final Path CONTRACT = ROOT.resolve("docs/protocol.md");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

  @Test
  void theReadmeLinksTheContractInTheRepository() throws IOException {
    assertThat(CONTRACT).exists();
    assertThat(Files.readString(ROOT.resolve("README.md"))).contains("(docs/protocol.md)");
  }

  @Test
  void theContractNamesEveryRouteWithItsInteractionAndEveryErrorCode() throws IOException {
    String contract = Files.readString(CONTRACT);
    for (Route route : Route.values()) {
      assertThat(contract).as("route %s", route.routeName())
          .contains("| `" + route.routeName() + "` | " + route.interaction().wireName() + " |");
    }
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(contract).as("error code %s", code).contains("| `" + code.name() + "` |");
    }
  }

  @Test
  void everyRelativeLinkOfTheReadmeAndTheContractLeadsSomewhere() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path document : List.of(ROOT.resolve("README.md"), CONTRACT)) {
      Matcher links = LINK.matcher(Files.readString(document));
      while (links.find()) {
        String target = links.group(1);
        if (target.startsWith("http://") || target.startsWith("https://")) {
          continue;
        }
        int hash = target.indexOf('#');
        Path file = hash == 0 ? document : document.getParent().resolve(hash < 0 ? target : target.substring(0, hash));
        if (!Files.exists(file)) {
          broken.add(document.getFileName() + ": " + target + " (no such file)");
        } else if (hash >= 0 && !anchors(file).contains(target.substring(hash + 1))) {
          broken.add(document.getFileName() + ": " + target + " (no such heading)");
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as dashes. */
  private static List<String> anchors(Path markdown) throws IOException {
    List<String> anchors = new ArrayList<>();
    if (!markdown.toString().endsWith(".md")) {
      return anchors;
    }
    for (String line : Files.readAllLines(markdown)) {
      if (line.startsWith("#")) {
        String title = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
        anchors.add(title.replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
      }
    }
    return anchors;
  }
}
