package io.reactiveregistry.protocol.trace;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A caller's W3C trace context (<a href="https://www.w3.org/TR/trace-context/">Trace Context</a>,
 * the {@code traceparent} header): the trace a request belongs to, the caller's span in it, and
 * whether the caller sampled it. Carried by the HTTP header of that name and by RSocket's
 * {@link io.reactiveregistry.protocol.Protocol#TRACE_MIME_TYPE} metadata entry.
 *
 * @param traceId 32 lowercase hex digits, not all zero
 * @param parentId 16 lowercase hex digits, not all zero: the caller's span
 * @param sampled the {@code sampled} flag: the caller records this trace
 */
public record TraceParent(String traceId, String parentId, boolean sampled) {
  private static final int VERSION_00_LENGTH = 55;

  /**
   * Reads a {@code traceparent} value. As the recommendation asks of a receiver, a value that is not
   * valid is ignored (empty) rather than refused: the request is served and starts a trace of its
   * own. A later version's value is read by its first four fields.
   */
  public static Optional<TraceParent> parse(@Nullable CharSequence value) {
    if (value == null) {
      return Optional.empty();
    }
    String text = value.toString().strip();
    if (text.length() < VERSION_00_LENGTH || text.charAt(2) != '-' || text.charAt(35) != '-'
        || text.charAt(52) != '-') {
      return Optional.empty();
    }
    String version = text.substring(0, 2);
    String traceId = text.substring(3, 35);
    String parentId = text.substring(36, 52);
    String flags = text.substring(53, 55);
    boolean exact = text.length() == VERSION_00_LENGTH;
    if (!hex(version) || "ff".equals(version) || ("00".equals(version) && !exact)
        || (!exact && text.charAt(VERSION_00_LENGTH) != '-')
        || !hex(traceId) || zero(traceId) || !hex(parentId) || zero(parentId) || !hex(flags)) {
      return Optional.empty();
    }
    return Optional.of(new TraceParent(traceId, parentId, (Integer.parseInt(flags, 16) & 1) == 1));
  }

  /** This context as a {@code traceparent} value (version 00). */
  public String header() {
    return "00-" + traceId + "-" + parentId + (sampled ? "-01" : "-00");
  }

  private static boolean hex(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  private static boolean zero(String text) {
    return text.chars().allMatch(c -> c == '0');
  }
}
