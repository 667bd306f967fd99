package io.reactiveregistry.protocol.rules;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The rules for an instance's port, weight and metadata. */
public final class InstanceRules {
  public static final double DEFAULT_WEIGHT = 1.0;
  public static final double MAX_WEIGHT = 10_000;
  public static final int MAX_METADATA_ENTRIES = 64;
  public static final int MAX_METADATA_BYTES = 16 * 1024;

  private InstanceRules() {}

  public static int port(String field, @Nullable Integer port) {
    if (port == null) {
      throw new RuleViolation(field + " is required");
    }
    if (port < 1 || port > 65_535) {
      throw new RuleViolation(field + " must be between 1 and 65535");
    }
    return port;
  }

  /** The weight, or the default 1.0 when absent. */
  public static double weight(String field, @Nullable Double weight) {
    if (weight == null) {
      return DEFAULT_WEIGHT;
    }
    if (!(weight >= 0 && weight <= MAX_WEIGHT)) {
      throw new RuleViolation(field + " must be between 0 and 10000");
    }
    return weight;
  }

  /** The metadata, or an empty map when absent: at most 64 entries and 16 KiB of UTF-8 in all. */
  public static Map<String, String> metadata(String field, @Nullable Map<String, String> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return Map.of();
    }
    if (metadata.size() > MAX_METADATA_ENTRIES) {
      throw new RuleViolation(field + " must have at most 64 entries (has " + metadata.size() + ")");
    }
    // Every entry is checked and its UTF-8 counted in one pass over its characters, and a message
    // is put together only for a refusal: an Eureka instance's 15-20 entries are checked on every
    // registration (concatenating each entry's field names and encoding its text to count it was
    // half of this rule's cost).
    long bytes = 0;
    for (Map.Entry<String, String> entry : metadata.entrySet()) {
      String key = entry.getKey();
      String value = entry.getValue();
      if (key == null || key.isEmpty()) {
        throw new RuleViolation(field + " keys must not be empty");
      }
      if (value == null) {
        throw new RuleViolation(field + " value of '" + key + "' must be a string, not null");
      }
      long keyBytes = utf8Bytes(key);
      if (keyBytes < 0) {
        throw loneSurrogate(field + " key '" + key + "'", keyBytes);
      }
      long valueBytes = utf8Bytes(value);
      if (valueBytes < 0) {
        throw loneSurrogate(field + " value of '" + key + "'", valueBytes);
      }
      bytes += keyBytes + valueBytes;
    }
    if (bytes > MAX_METADATA_BYTES) {
      throw new RuleViolation(field + " must be at most 16 KiB in all (has " + bytes + " bytes)");
    }
    return metadata;
  }

  /**
   * Refuses text that is not valid Unicode: a lone UTF-16 surrogate (JSON's {@code "\\ud800"})
   * cannot be encoded as UTF-8, so storing it would corrupt what is written and sent back.
   */
  static void wellFormed(String field, String text) {
    long bytes = utf8Bytes(text);
    if (bytes < 0) {
      throw loneSurrogate(field, bytes);
    }
  }

  /**
   * The length of {@code text} in UTF-8, as {@code getBytes(UTF_8)} would give it, without encoding
   * it; or {@code -1 - i} when the character at {@code i} is a lone surrogate.
   */
  static long utf8Bytes(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        return -1L - i;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  private static RuleViolation loneSurrogate(String field, long utf8Bytes) {
    return new RuleViolation(field + " is not valid Unicode: a lone surrogate at character " + (-1L - utf8Bytes));
  }
}
