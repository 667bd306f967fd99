package io.reactiveregistry.server.tls;

import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.jspecify.annotations.Nullable;

/** Reads who a verified TLS client certificate names. */
public final class ClientCertificates {
  private ClientCertificates() {}

  /** The common name (CN) of the subject of the peer's certificate; null when it presented none. */
  public static @Nullable String commonName(@Nullable SslHandler tls) {
    if (tls == null) {
      return null;
    }
    try {
      Certificate[] chain = tls.engine().getSession().getPeerCertificates();
      if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
        return null;
      }
      for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
        if ("CN".equalsIgnoreCase(rdn.getType())) {
          return String.valueOf(rdn.getValue());
        }
      }
      return null;
    } catch (SSLPeerUnverifiedException | InvalidNameException e) {
      return null; // no client certificate: a token must speak for the peer
    }
  }
}
