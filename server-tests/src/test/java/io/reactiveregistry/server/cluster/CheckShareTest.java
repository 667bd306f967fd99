package io.reactiveregistry.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.server.core.ServiceKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CheckShareTest {
  static final List<ServiceKey> SERVICES = IntStream.range(0, 3000)
      .mapToObj(i -> ServiceKey.of("public", "DEFAULT_GROUP", "service-" + i)).toList();

  @Test
  void everyServiceHasExactlyOneCheckerAndTheMembersShareThemEvenly() {
    List<String> members = List.of("n1", "n2", "n3");
    Map<String, Integer> counts = new HashMap<>();
    for (ServiceKey service : SERVICES) {
      long checkers = members.stream().filter(member -> new CheckShare(member, () -> members).test(service)).count();
      assertThat(checkers).as("members checking %s", service).isEqualTo(1);
      counts.merge(CheckShare.checker(service, members), 1, Integer::sum);
    }
    assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(members);
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(900, 1100));
  }

  @Test
  void whenAMemberIsLostOnlyItsServicesMoveAndTheyMoveToTheOthersEvenly() {
    List<String> before = List.of("n1", "n2", "n3");
    List<String> after = List.of("n1", "n3");
    Map<String, Integer> moved = new HashMap<>();
    for (ServiceKey service : SERVICES) {
      String was = CheckShare.checker(service, before);
      String now = CheckShare.checker(service, after);
      if (was.equals("n2")) {
        moved.merge(now, 1, Integer::sum);
      } else {
        assertThat(now).as("%s stays with its member", service).isEqualTo(was);
      }
    }
    assertThat(moved.values()).allSatisfy(count -> assertThat(count).isBetween(400, 600));
  }

  @Test
  void theOrderInWhichAMemberSeesThePeersDoesNotMatterAndAMemberOutsideTheGroupChecksNothing() {
    for (ServiceKey service : SERVICES.subList(0, 200)) {
      assertThat(CheckShare.checker(service, List.of("n3", "n1", "n2")))
          .isEqualTo(CheckShare.checker(service, List.of("n1", "n2", "n3")));
      assertThat(new CheckShare("n4", () -> List.of("n1", "n2", "n3")).test(service)).isFalse();
    }
  }
}
