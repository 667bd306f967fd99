package io.reactiveregistry.protocol.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The selector grammar of the contract's "Selectors" section, as tables. */
class SelectorTest {
  private static final Map<String, String> V2_ZONE_A = Map.of("version", "v2", "zone", "a", "canary", "true");
  private static final Map<String, String> V1_NO_ZONE = Map.of("version", "v1");

  @ParameterizedTest(name = "''{0}'' selects v2/a: {1}, v1/no zone: {2}")
  @CsvSource(delimiter = '|', value = {
      "version=v2                         | true  | false",
      "version==v2                        | true  | false",
      " version = v2 ,  zone = a          | true  | false",
      "version!=v2                        | false | true",
      "zone!=b                            | true  | true",
      "version in (v2,v3)                 | true  | false",
      "version in(v1)                     | false | true",
      "zone notin (a)                     | false | true",
      "zone notin (b, c)                  | true  | true",
      "zone                               | true  | false",
      "!zone                              | false | true",
      "canary,version=v2                  | true  | false",
      "'version=\"v2\"'                   | true  | false",
      "''                                 | true  | true",
      "'   '                              | true  | true",
  })
  void selectsByTheRulesOfKubernetesLabelSelectors(String text, boolean selectsV2, boolean selectsV1) {
    Selector selector = Selector.parse("selector", text);
    assertThat(selector.matches(V2_ZONE_A)).isEqualTo(selectsV2);
    assertThat(selector.matches(V1_NO_ZONE)).isEqualTo(selectsV1);
  }

  @Test
  void quotedValuesHoldAnyCharacterWithBackslashEscapes() {
    Selector selector = Selector.parse("selector", "owner = \"team \\\"blue\\\", \\\\ ops\"");
    assertThat(selector.matches(Map.of("owner", "team \"blue\", \\ ops"))).isTrue();
    assertThat(selector.matches(Map.of("owner", "team blue"))).isFalse();
    assertThat(Selector.parse("selector", selector.toString())).isEqualTo(selector);
  }

  @Test
  void theSameRequirementsInAnyOrderAreOneSelector() {
    Selector one = Selector.parse("selector", "zone in (b, a), version=v2");
    Selector other = Selector.parse("selector", "version == v2,zone in(a,b)");
    assertThat(one).isEqualTo(other).hasSameHashCodeAs(other);
    assertThat(one.toString()).isEqualTo("version=v2,zone in (a,b)");
    assertThat(Selector.parse("selector", one.toString())).isEqualTo(one);
  }

  @ParameterizedTest(name = "''{0}'' -> {1}")
  @CsvSource(delimiter = '|', value = {
      "version=                 | at position 9, expected a value for 'version' (found the end)",
      "=v2                      | at position 1, expected a key (found '=')",
      "version=v2,              | at position 12, expected a key (found the end)",
      "version v2               | at position 9, expected '=', '==', '!=', 'in', 'notin', ',' or the end after key 'version' (found 'v')",
      "version in v2            | at position 12, expected '(' to open the values of 'version' (found 'v')",
      "version in (v1 v2)       | at position 16, expected ',' or ')' in the values of 'version' (found 'v')",
      "version in ()            | at position 13, expected a value for 'version' (found ')')",
      "version !v2              | at position 10, expected '=' after '!' (found 'v')",
      "!                        | at position 2, expected a key after '!' (found the end)",
      "version=v2;zone=a        | at position 11, expected ',' or the end (found ';')",
      "'owner=\"open'           | at position 7, the quoted string opened here is not closed (found '\"')",
      "'owner=\"a\\b\"'         | at position 10, expected '\"' or '\\' after '\\' (found 'b')",
      "'version=ü'              | at position 9, expected a value for 'version' (found 'ü')",
  })
  void aBadSelectorIsRefusedNamingTheFieldAndThePosition(String text, String message) {
    assertThatThrownBy(() -> Selector.parse("selector", text))
        .isInstanceOf(RuleViolation.class)
        .hasMessage("selector is not a valid selector: " + message);
  }

  @Test
  void lengthAndRequirementsAreBounded() {
    assertThatThrownBy(() -> Selector.parse("selector", "k=" + "v".repeat(Selector.MAX_LENGTH)))
        .hasMessage("selector must be at most 1024 characters long (is 1026)");
    StringBuilder many = new StringBuilder("k0");
    for (int i = 1; i <= Selector.MAX_REQUIREMENTS; i++) {
      many.append(",k").append(i);
    }
    assertThatThrownBy(() -> Selector.parse("selector", many.toString()))
        .hasMessage("selector may have at most 32 requirements");
    assertThat(Selector.parse("selector", null).selectsEverything()).isTrue();
  }
}
