package io.reactiveregistry.server.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.text.ParseException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Verifies signed bearer tokens (JWTs): the signature with Nimbus JOSE+JWT against the configured
 * keys (HS256 with a shared secret, RS256 or ES256 with public keys), then the claims against the
 * server's clock. The token names its principal in {@code sub} and what it may do in a
 * {@code permissions} claim written like a token file's; {@code exp} is required, {@code nbf}
 * honoured. A refusal says why without repeating the token.
 */
public final class JwtVerifier {
  private static final Set<JWSAlgorithm> ALGORITHMS = Set.of(JWSAlgorithm.HS256, JWSAlgorithm.RS256,
      JWSAlgorithm.ES256);
  private static final Pattern PEM_PUBLIC_KEY =
      Pattern.compile("-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\\s]+)-----END PUBLIC KEY-----");

  private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
  private final InstantSource clock;
  private final int keys;

  JwtVerifier(JWKSet keys, InstantSource clock) {
    this.clock = clock;
    this.keys = keys.size();
    processor.setJWSKeySelector(new JWSVerificationKeySelector<>(ALGORITHMS, new ImmutableJWKSet<>(keys)));
    processor.setJWTClaimsSetVerifier((claims, context) -> { }); // times are checked against our clock below
  }

  /**
   * Reads the verification keys: a JWK Set ({@code {"keys": [...]}}, where an HS256 secret is an
   * {@code oct} key) or PEM public keys ({@code -----BEGIN PUBLIC KEY-----}, RSA or EC P-256).
   * Blocking: file I/O.
   */
  public static JwtVerifier read(Path file, InstantSource clock) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    try {
      JWKSet keys = text.strip().startsWith("{") ? JWKSet.parse(text) : new JWKSet(pemKeys(text, file));
      if (keys.isEmpty()) {
        throw new IllegalArgumentException("JWT key file " + file + " holds no key");
      }
      for (JWK key : keys.getKeys()) {
        if (key.isPrivate() && !(key instanceof OctetSequenceKey)) { // the server holds no signing key
          throw new IllegalArgumentException("JWT key file " + file + ": key " + (key.getKeyID() == null ? ""
              : "'" + key.getKeyID() + "' ") + "is a private key; give the server only public keys (HS256 "
              + "secrets are the exception, as oct keys)");
        }
      }
      return new JwtVerifier(keys, clock);
    } catch (ParseException e) {
      throw new IllegalArgumentException("JWT key file " + file + " is neither a JWK Set nor PEM public keys: "
          + e.getMessage(), e);
    }
  }

  private static List<JWK> pemKeys(String text, Path file) {
    List<JWK> keys = new ArrayList<>();
    Matcher pem = PEM_PUBLIC_KEY.matcher(text);
    while (pem.find()) {
      byte[] der = Base64.getMimeDecoder().decode(pem.group(1));
      keys.add(publicKey(der, file));
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("JWT key file " + file + " is neither a JWK Set ({\"keys\": [...]}) nor "
          + "PEM public keys (-----BEGIN PUBLIC KEY-----)");
    }
    return keys;
  }

  private static JWK publicKey(byte[] der, Path file) {
    for (String algorithm : List.of("RSA", "EC")) {
      try {
        PublicKey key = KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
        if (key instanceof RSAPublicKey rsa) {
          return new RSAKey.Builder(rsa).build();
        }
        if (key instanceof ECPublicKey ec) {
          return new ECKey.Builder(Curve.forECParameterSpec(ec.getParams()), ec).build();
        }
      } catch (GeneralSecurityException | IllegalArgumentException e) {
        // not this algorithm: try the next
      }
    }
    throw new IllegalArgumentException("JWT key file " + file + ": a PEM public key is neither RSA nor EC P-256");
  }

  /** Whether a bearer token has a JWT's shape (three dot-separated parts), to tell it from a static token. */
  public static boolean looksLikeJwt(String token) {
    int first = token.indexOf('.');
    return first > 0 && token.indexOf('.', first + 1) > first + 1 && token.chars().filter(c -> c == '.').count() == 2;
  }

  public int keys() {
    return keys;
  }

  /** The principal of a valid signed token; refused with {@code UNAUTHENTICATED} saying why. */
  public Credential verify(String token) {
    JWTClaimsSet claims;
    try {
      claims = processor.process(token, null);
    } catch (ParseException e) {
      throw refused("it is not a well-formed JWT");
    } catch (BadJOSEException | JOSEException e) {
      throw refused("its signature does not verify with the configured keys (HS256, RS256 or ES256)");
    }
    Instant now = clock.instant();
    Date expires = claims.getExpirationTime();
    if (expires == null) {
      throw refused("it has no exp claim; signed tokens must expire");
    }
    if (!now.isBefore(expires.toInstant())) {
      throw refused("it expired at " + expires.toInstant());
    }
    Date notBefore = claims.getNotBeforeTime();
    if (notBefore != null && now.isBefore(notBefore.toInstant())) {
      throw refused("it is not valid before " + notBefore.toInstant());
    }
    String subject = claims.getSubject();
    if (subject == null || subject.isBlank()) {
      throw refused("it has no sub claim naming its principal");
    }
    Map<String, Object> permissions;
    try {
      permissions = claims.getJSONObjectClaim("permissions");
    } catch (ParseException e) {
      throw refused("its permissions claim is not an object like {\"prod\": [\"read\", \"write\"]}");
    }
    if (permissions == null) {
      throw refused("it has no permissions claim like {\"prod\": [\"read\", \"write\"]}");
    }
    try {
      return new Credential(new Principal(printable(subject), Grants.parse(permissions, "permissions")), null,
          expires.toInstant());
    } catch (IllegalArgumentException e) {
      throw refused(e.getMessage());
    }
  }

  /** A principal's name ends up in logs and messages: printable and short. */
  private static String printable(String subject) {
    String name = subject.replaceAll("[^A-Za-z0-9._:@/-]", "_");
    return name.length() > 64 ? name.substring(0, 64) : name;
  }

  private static EdgeRefusal refused(String why) {
    return new EdgeRefusal(ErrorCode.UNAUTHENTICATED, "the bearer token is not valid: " + why);
  }
}
