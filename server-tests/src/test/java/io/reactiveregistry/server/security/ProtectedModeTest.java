package io.reactiveregistry.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which remote addresses protected mode serves. No traffic: addresses only. */
class ProtectedModeTest {

  @ParameterizedTest(name = "{0}: served in protected mode {1}")
  @CsvSource({
      "127.0.0.1,        true",
      "127.9.8.7,        true",
      "::1,              true",
      "::ffff:127.0.0.1, true",
      "192.0.2.1,        false",
      "10.1.2.3,         false",
      "::ffff:192.0.2.1, false",
      "fe80::1,          false",
      "2001:db8::1,      false",
      "0.0.0.0,          false",
  })
  void onlyLoopbackIsServedUntilTheOperatorSaysOtherwise(String address, boolean served) throws Exception {
    InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName(address), 40_000);

    String refusal = new ProtectedMode(SecurityConfig.DEFAULTS).refusal(remote);
    assertThat(refusal == null).isEqualTo(served);
    if (!served) {
      assertThat(refusal).contains("protected mode", "--allow-unauthenticated", remote.getAddress().getHostAddress());
    }
    assertThat(new ProtectedMode(new SecurityConfig(true, null)).refusal(remote)).isNull();
    assertThat(new ProtectedMode(new SecurityConfig(false, java.nio.file.Path.of("tokens.json"))).refusal(remote))
        .as("credentials lift protected mode: every request needs a token instead").isNull();
  }
}
