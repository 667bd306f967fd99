package io.reactiveregistry.protocol.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The contract's "Identity and defaults" rules, as tables. */
class RulesTest {

  @ParameterizedTest
  @ValueSource(strings = {"orders", "a", "orders-v2_x.y:z@eu", "0123456789"})
  void namesOfLettersDigitsAndPunctuationAreAccepted(String name) {
    assertThat(Names.require("service", name)).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "with space", "slash/ed", "ünï", "tab\t", "semi;colon"})
  void namesBreakingTheRuleAreRefusedNamingTheField(String name) {
    assertThatThrownBy(() -> Names.require("group", name))
        .isInstanceOf(RuleViolation.class)
        .hasMessageStartingWith("group ");
  }

  @Test
  void namesAreAtMost256Characters() {
    assertThat(Names.require("service", "x".repeat(256))).hasSize(256);
    assertThatThrownBy(() -> Names.require("service", "x".repeat(257))).hasMessageContaining("1-256");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "127.0.0.1, 127.0.0.1",
      "::1, ::1",
      "0:0:0:0:0:0:0:1, ::1",
      "2001:DB8:0:0:0:0:0:1, 2001:db8::1",
      "[2001:db8::1], 2001:db8::1",
      "2001:db8:0:1:0:0:0:1, 2001:db8:0:1::1",
      "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",
      "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
      "0:0:0:0:0:0:0:0, ::",
      "fe80:0:0:0:0:0:0:0, fe80::",
      "2001:db8:1:2:3:4:5:6, 2001:db8:1:2:3:4:5:6",
      "::FFFF:0:1.2.3.4, ::ffff:0:102:304",
      "0.0.0.0, 0.0.0.0",
      "255.255.255.255, 255.255.255.255",
      "127.10.100.9, 127.10.100.9",
      "localhost, localhost",
      "orders-1.internal.example, orders-1.internal.example",
  })
  void addressesAreLiteralsOrHostNamesAndIpv6IsNormalised(String ip, String normalised) {
    assertThat(Addresses.normalize("instance.ip", ip)).isEqualTo(normalised);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "300.1.1.1", "1.2.3", "127.0.0.01", "1.2.3.4.5", "1..2.3", "256.0.0.1", "1.2.3.", ".1.2.3", "127.00.0.1", "1.2.3.1000", "1.2.3.-4", "::g", "1:2:3:4:5:6:7:8:9",
      "fe80::1%eth0", "::ffff:1.2.3.4", ":", "[::1", "-bad.example", "under_score.example", "a..b", "spa ce"})
  void invalidAddressesAreRefusedNamingTheField(String ip) {
    assertThatThrownBy(() -> Addresses.normalize("instance.ip", ip))
        .isInstanceOf(RuleViolation.class)
        .hasMessageStartingWith("instance.ip");
  }

  @Test
  void hostNamesAreAtMost253Characters() {
    String name253 = ("a".repeat(62) + ".").repeat(4) + "a"; // 63*4+1 = 253
    assertThat(Addresses.normalize("ip", name253)).hasSize(253);
    assertThatThrownBy(() -> Addresses.normalize("ip", name253 + "a")).hasMessageContaining("253");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 65_536})
  void portsOutside1To65535AreRefused(int port) {
    assertThatThrownBy(() -> InstanceRules.port("instance.port", port))
        .hasMessage("instance.port must be between 1 and 65535");
  }

  @ParameterizedTest
  @ValueSource(doubles = {-0.1, 10_000.5, Double.NaN})
  void weightsOutside0To10000AreRefused(double weight) {
    assertThatThrownBy(() -> InstanceRules.weight("instance.weight", weight))
        .hasMessage("instance.weight must be between 0 and 10000");
  }

  @Test
  void metadataMustBeValidUnicode() {
    assertThat(InstanceRules.metadata("metadata", Map.of("emoji", "\ud83d\ude00"))).containsEntry("emoji", "\ud83d\ude00");
    assertThatThrownBy(() -> InstanceRules.metadata("instance.metadata", Map.of("zone", "a\ud800b")))
        .isInstanceOf(RuleViolation.class)
        .hasMessage("instance.metadata value of 'zone' is not valid Unicode: a lone surrogate at character 1");
    assertThatThrownBy(() -> InstanceRules.metadata("metadata", Map.of("\udc00", "v")))
        .hasMessageContaining("metadata key").hasMessageContaining("not valid Unicode");
  }

  @Test
  void metadataIsAtMost64Entries() {
    Map<String, String> metadata = new HashMap<>();
    for (int i = 0; i < 64; i++) {
      metadata.put("k" + i, "v");
    }
    assertThat(InstanceRules.metadata("metadata", metadata)).hasSize(64);
    metadata.put("one-more", "v");
    assertThatThrownBy(() -> InstanceRules.metadata("metadata", metadata)).hasMessageContaining("at most 64");
  }

  @Test
  void metadataIsAtMost16KibOfUtf8() {
    assertThat(InstanceRules.metadata("metadata", Map.of("k", "v".repeat(16 * 1024 - 1)))).hasSize(1);
    assertThatThrownBy(() -> InstanceRules.metadata("metadata", Map.of("k", "v".repeat(16 * 1024))))
        .hasMessageContaining("16 KiB");
    // Two bytes per 'é' in UTF-8.
    assertThatThrownBy(() -> InstanceRules.metadata("metadata", Map.of("k", "é".repeat(8 * 1024))))
        .hasMessageContaining("16 KiB");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "ascii", "zone-é", "€uro", "\ud83d\ude00 grin", "mixed é € \ud83d\ude00 end"})
  void metadataIsCountedInUtf8AsEncodingWouldCountIt(String text) {
    assertThat(InstanceRules.utf8Bytes(text)).isEqualTo(text.getBytes(StandardCharsets.UTF_8).length);
    // Three bytes per '€': 5,462 of them are 16,386 bytes, over the bound by their count, not by their length.
    assertThatThrownBy(() -> InstanceRules.metadata("metadata", Map.of("k" + text, "€".repeat(5_462))))
        .hasMessageContaining("16 KiB");
  }

  @Test
  void aLoneSurrogateIsFoundWhereItIs() {
    assertThat(InstanceRules.utf8Bytes("ab\ud800")).isEqualTo(-1 - 2);
    assertThat(InstanceRules.utf8Bytes("\udc00\ud83d\ude00")).isEqualTo(-1);
    assertThatThrownBy(() -> InstanceRules.metadata("instance.metadata", Map.of("zo\udc00ne", "a")))
        .hasMessage("instance.metadata key 'zo\udc00ne' is not valid Unicode: a lone surrogate at character 2");
  }

  @Test
  void metadataValuesMustNotBeNull() {
    Map<String, String> metadata = new HashMap<>();
    metadata.put("zone", null);
    assertThatThrownBy(() -> InstanceRules.metadata("instance.metadata", metadata))
        .hasMessageContaining("'zone'");
  }
}
