package io.reactiveregistry.protocol.rules;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
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

  private Addresses() {}

  public static String normalize(String field, @Nullable String ip) {
    if (ip == null) {
      throw new RuleViolation(field + " is required");
    }
    if (ip.indexOf(':') >= 0) {
      String literal = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
      Inet6Address address = ipv6(literal);
      if (address == null) {
        throw new RuleViolation(field + " '" + ip + "' is not a valid IPv6 address");
      }
      return compressed(address.getAddress());
    }
    if (digitsAndDots(ip)) {
      if (!isIpv4(ip)) {
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

  /**
   * The IPv6 address a literal spells; null when it is none. The JDK parses a string with a colon
   * as a literal and never resolves it; zone ids ({@code %eth0}) are refused first, since they
   * would be looked up among this machine's interfaces and mean nothing to another.
   */
  private static @Nullable Inet6Address ipv6(String literal) {
    if (literal.isEmpty() || literal.indexOf('%') >= 0 || literal.indexOf(':') < 0) {
      return null;
    }
    try {
      return InetAddress.getByName(literal) instanceof Inet6Address v6 ? v6 : null;
    } catch (UnknownHostException notALiteral) {
      return null;
    }
  }

  /** Whether the text is only digits and dots (and not empty): an IPv4 address or nothing. */
  private static boolean digitsAndDots(String ip) {
    for (int i = 0; i < ip.length(); i++) {
      char c = ip.charAt(i);
      if ((c < '0' || c > '9') && c != '.') {
        return false;
      }
    }
    return !ip.isEmpty();
  }

  /**
   * Four decimal numbers from 0 to 255, without leading zeros (which some read as octal). Read
   * character by character: every registration and heartbeat names an address.
   */
  private static boolean isIpv4(String ip) {
    int parts = 0;
    int value = 0;
    int digits = 0;
    for (int i = 0; i <= ip.length(); i++) {
      char c = i < ip.length() ? ip.charAt(i) : '.';
      if (c == '.') {
        if (digits == 0 || ++parts > 4) {
          return false;
        }
        value = 0;
        digits = 0;
      } else {
        if (c < '0' || c > '9' || digits > 0 && value == 0) { // not a digit, or after a leading 0
          return false;
        }
        value = value * 10 + (c - '0');
        if (++digits > 3 || value > 255) {
          return false;
        }
      }
    }
    return parts == 4;
  }

  /**
   * RFC 5952 text: lower-case hex groups without leading zeros, the longest run of two or more
   * zero groups (the first, if two are as long) written {@code ::}.
   */
  private static String compressed(byte[] address) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = (address[2 * i] & 0xff) << 8 | address[2 * i + 1] & 0xff;
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder text = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }
}
