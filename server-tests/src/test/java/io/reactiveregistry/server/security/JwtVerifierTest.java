package io.reactiveregistry.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Signed tokens against a fixed clock: each algorithm, and each way a token is not valid. */
class JwtVerifierTest {
  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  private static final InstantSource CLOCK = InstantSource.fixed(NOW);
  private static final Map<String, Object> PROD = Map.of("prod", List.of("read", "write"));

  @TempDir
  Path dir;

  private JwtVerifier verifier(String keys) throws Exception {
    Path file = dir.resolve("keys");
    Files.writeString(file, keys);
    return JwtVerifier.read(file, CLOCK);
  }

  private static String refusal(JwtVerifier verifier, String token) {
    try {
      verifier.verify(token);
    } catch (EdgeRefusal refusal) {
      assertThat(refusal.code().name()).isEqualTo("UNAUTHENTICATED");
      assertThat(refusal.getMessage()).doesNotContain(token);
      return refusal.getMessage();
    }
    throw new AssertionError("expected the token to be refused");
  }

  @Test
  void anHs256TokenSpeaksForItsSubjectWithItsPermissionsUntilItExpires() throws Exception {
    JwtVerifier verifier = verifier(SignedTokens.secretJwkSet());
    Instant expires = NOW.plus(Duration.ofMinutes(5));

    Credential credential = verifier.verify(SignedTokens.hs256("orders-app", PROD, expires));

    assertThat(credential.principal().name()).isEqualTo("orders-app");
    assertThat(credential.principal().may(Permission.WRITE, "prod")).isTrue();
    assertThat(credential.principal().may(Permission.WRITE, "dev")).isFalse();
    assertThat(credential.principal().may(Permission.ADMIN, "prod")).isFalse();
    assertThat(credential.expiresAt()).isEqualTo(expires);
    assertThat(credential.staticHash()).isNull();
  }

  @Test
  void rs256AndEs256TokensVerifyWithPemAndJwkPublicKeys() throws Exception {
    RSAKey rsa = SignedTokens.rsaKey();
    ECKey ec = SignedTokens.ecKey();
    Instant expires = NOW.plusSeconds(60);

    JwtVerifier fromPem = verifier(SignedTokens.pem(rsa.toPublicKey()) + SignedTokens.pem(ec.toPublicKey()));
    assertThat(fromPem.verify(SignedTokens.rs256(rsa, "rsa-app", PROD, expires)).principal().name()).isEqualTo("rsa-app");
    assertThat(fromPem.verify(SignedTokens.es256(ec, "ec-app", PROD, expires)).principal().name()).isEqualTo("ec-app");

    JwtVerifier fromJwks = verifier(new JWKSet(List.of(rsa.toPublicJWK(), ec.toPublicJWK())).toString());
    assertThat(fromJwks.verify(SignedTokens.es256(ec, "ec-app", PROD, expires)).principal().name()).isEqualTo("ec-app");
    assertThat(refusal(fromJwks, SignedTokens.es256(SignedTokens.ecKey(), "ec-app", PROD, expires)))
        .as("signed by another key").contains("signature does not verify");
  }

  @Test
  void aTokenThatIsNotValidIsRefusedSayingWhy() throws Exception {
    JwtVerifier verifier = verifier(SignedTokens.secretJwkSet());
    Instant later = NOW.plusSeconds(60);

    assertThat(refusal(verifier, SignedTokens.hs256("app", PROD, NOW))).contains("expired at " + NOW);
    assertThat(refusal(verifier, SignedTokens.hs256("app", PROD, null))).contains("no exp claim");
    assertThat(refusal(verifier, SignedTokens.hs256(null, PROD, later))).contains("no sub claim");
    assertThat(refusal(verifier, SignedTokens.hs256("app", null, later))).contains("no permissions claim");
    assertThat(refusal(verifier, SignedTokens.hs256("app", Map.of("prod", List.of("root")), later)))
        .contains("'root' is not a permission");
    assertThat(refusal(verifier, SignedTokens.sign(new MACSigner("another-secret-of-32-bytes-000000"),
        JWSAlgorithm.HS256, "app", PROD, later))).contains("signature does not verify");
    // alg "none": unsigned, whatever it claims
    String unsigned = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes(
        StandardCharsets.UTF_8)) + "." + SignedTokens.hs256("app", PROD, later).split("\\.")[1] + ".";
    assertThat(refusal(verifier, unsigned)).contains("not valid");
    assertThat(refusal(verifier, "a.b.c")).contains("not a well-formed JWT");
  }

  @Test
  void aKeyFileWithAPrivateKeyOrNoKeyIsRefused() {
    assertThatThrownBy(() -> verifier(new JWKSet(SignedTokens.rsaKey()).toString(false)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is a private key");
    assertThatThrownBy(() -> verifier("not a key"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("neither a JWK Set");
  }

  @Test
  void aStaticTokenIsNotMistakenForASignedOne() {
    assertThat(JwtVerifier.looksLikeJwt("aaa.bbb.ccc")).isTrue();
    assertThat(JwtVerifier.looksLikeJwt("6f1c2b7a90e1")).isFalse();
    assertThat(JwtVerifier.looksLikeJwt("a.b")).isFalse();
    assertThat(JwtVerifier.looksLikeJwt("a..c")).isFalse();
  }
}
