package io.reactiveregistry.server.security;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.codec.MalformedBodyException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The static tokens a server accepts, read from a JSON file that holds only their SHA-256 hashes:
 *
 * <pre>{@code
 * {"tokens": [
 *   {"name": "orders-app", "sha256": "<64 hex digits>", "permissions": {"prod": ["read", "write"]}},
 *   {"name": "ops", "sha256": "<64 hex digits>", "permissions": {"*": ["read", "write", "admin"]}},
 *   {"name": "billing", "clientCertificate": true, "permissions": {"prod": ["read"]}}
 * ]}
 * }</pre>
 *
 * An entry with {@code "clientCertificate": true} speaks also (or, without {@code sha256}, only) for
 * a TLS client certificate whose subject's common name is the entry's name.
 *
 * A file that breaks a rule is refused whole, with a message naming the entry and the rule.
 */
public final class TokenFile {
  /**
   * One principal: what it may do, the hash of its token (null: none), and whether a client
   * certificate named after it speaks for it.
   */
  public record Entry(Principal principal, byte @Nullable [] sha256, boolean clientCertificate) {}

  record Body(List<EntryBody> tokens) {}

  record EntryBody(String name, String sha256, Boolean clientCertificate, Map<String, List<String>> permissions) {}

  private TokenFile() {}

  /** Reads and checks the file. Blocking: file I/O. */
  public static List<Entry> read(Path file) throws IOException {
    return parse(Files.readAllBytes(file), file);
  }

  /** Checks a token file's content; {@code file} names it in messages. */
  public static List<Entry> parse(byte[] content, Path file) {
    Body body;
    try {
      body = JsonCodec.json().decode(content, Body.class);
    } catch (MalformedBodyException e) {
      throw new IllegalArgumentException("token file " + file + " is not valid JSON: " + e.getMessage(), e);
    }
    if (body.tokens() == null) {
      throw invalid(file, "tokens is required: a list of {name, sha256, permissions}");
    }
    List<Entry> entries = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < body.tokens().size(); i++) {
      EntryBody entry = body.tokens().get(i);
      String at = "tokens[" + i + "]";
      if (entry == null || entry.name() == null || entry.name().isBlank()) {
        throw invalid(file, at + ".name is required");
      }
      if (!names.add(entry.name())) {
        throw invalid(file, at + ".name repeats " + entry.name());
      }
      boolean certificate = Boolean.TRUE.equals(entry.clientCertificate());
      if (entry.sha256() == null && !certificate) {
        throw invalid(file, at + ".sha256 is required (the SHA-256 of the token, 64 hex digits), unless "
            + "clientCertificate is true");
      }
      if (entry.sha256() != null && !entry.sha256().matches("[0-9a-fA-F]{64}")) {
        throw invalid(file, at + ".sha256 must be the SHA-256 of the token, 64 hex digits");
      }
      if (entry.permissions() == null || entry.permissions().isEmpty()) {
        throw invalid(file, at + ".permissions is required: namespace pattern to [read, write, admin]");
      }
      List<Principal.Grant> grants;
      try {
        grants = Grants.parse(entry.permissions(), at + ".permissions");
      } catch (IllegalArgumentException e) {
        throw invalid(file, e.getMessage());
      }
      entries.add(new Entry(new Principal(entry.name(), grants),
          entry.sha256() == null ? null : HexFormat.of().parseHex(entry.sha256()), certificate));
    }
    return entries;
  }

  private static IllegalArgumentException invalid(Path file, String rule) {
    return new IllegalArgumentException("token file " + file + ": " + rule);
  }
}
