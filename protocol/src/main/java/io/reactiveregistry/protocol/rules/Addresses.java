package io.reactiveregistry.protocol.rules;

import com.google.common.net.InetAddresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The {@code ip} rule: an IPv4 or IPv6 literal, or a host name that is not resolved. IPv6 is
 * normalised to its compressed lower-case form (RFC 5952) so that one address has one instanceId.
 * Parsing never touches DNS.
 */
public final class Addresses {
  public static final int MAX_HOST_NAME_LENGTH = 253;
  private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
  private static final Pattern DIGITS_AND_DOTS = Pattern.compile("[0-9.]+");

  private Addresses() {}

  public static String normalize(String field, @Nullable String ip) {
    if (ip == null) {
      throw new RuleViolation(field + " is required");
    }
    if (ip.indexOf(':') >= 0) {
      String literal = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
      if (!InetAddresses.isInetAddress(literal)) {
        throw new RuleViolation(field + " '" + ip + "' is not a valid IPv6 address");
      }
      InetAddress address = InetAddresses.forString(literal);
      if (!(address instanceof Inet6Address)) {
        throw new RuleViolation(field + " '" + ip + "' is not a valid IPv6 address");
      }
      return InetAddresses.toAddrString(address);
    }
    if (DIGITS_AND_DOTS.matcher(ip).matches()) {
      if (!InetAddresses.isInetAddress(ip)) {
        throw new RuleViolation(field + " '" + ip + "' is not a valid IPv4 address");
      }
      return ip;
    }
    if (ip.isEmpty() || ip.length() > MAX_HOST_NAME_LENGTH) {
      throw new RuleViolation(field + " must be an IP address or a host name of 1-253 characters");
    }
    for (String label : ip.split("\\.", -1)) {
      if (!LABEL.matcher(label).matches()) {
        throw new RuleViolation(field + " '" + ip + "' is neither an IP address nor a valid host name");
      }
    }
    return ip;
  }
}
