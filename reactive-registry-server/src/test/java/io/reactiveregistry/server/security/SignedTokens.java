package io.reactiveregistry.server.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Map;

/** Signs tokens the way an identity provider would, for tests: HS256, RS256 and ES256. */
public final class SignedTokens {
  /** A 256-bit HS256 secret. */
  public static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  private SignedTokens() {}

  /** The JWK Set of {@link #SECRET}, as a server's key file holds it. */
  public static String secretJwkSet() {
    return "{\"keys\":[{\"kty\":\"oct\",\"alg\":\"HS256\",\"k\":\""
        + Base64.getUrlEncoder().withoutPadding().encodeToString(SECRET) + "\"}]}";
  }

  public static RSAKey rsaKey() {
    try {
      return new RSAKeyGenerator(2048).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  public static ECKey ecKey() {
    try {
      return new ECKeyGenerator(Curve.P_256).generate();
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A PEM public key, as {@code openssl pkey -pubout} writes it. */
  public static String pem(java.security.PublicKey key) {
    return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
        + "\n-----END PUBLIC KEY-----\n";
  }

  public static String hs256(String subject, Map<String, Object> permissions, Instant expires) {
    try {
      return sign(new MACSigner(SECRET), JWSAlgorithm.HS256, subject, permissions, expires);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String rs256(RSAKey key, String subject, Map<String, Object> permissions, Instant expires) {
    try {
      return sign(new RSASSASigner(key), JWSAlgorithm.RS256, subject, permissions, expires);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String es256(ECKey key, String subject, Map<String, Object> permissions, Instant expires) {
    try {
      return sign(new ECDSASigner(key), JWSAlgorithm.ES256, subject, permissions, expires);
    } catch (JOSEException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Signs claims as given: a null subject, permissions or expiry is left out. */
  public static String sign(JWSSigner signer, JWSAlgorithm algorithm, String subject, Map<String, Object> permissions,
      Instant expires) throws JOSEException {
    JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().issueTime(new Date(0));
    if (subject != null) {
      claims.subject(subject);
    }
    if (permissions != null) {
      claims.claim("permissions", permissions);
    }
    if (expires != null) {
      claims.expirationTime(Date.from(expires));
    }
    SignedJWT jwt = new SignedJWT(new JWSHeader(algorithm), claims.build());
    jwt.sign(signer);
    return jwt.serialize();
  }
}
