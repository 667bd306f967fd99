package io.reactiveregistry.server.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The tokens of a {@link TokenFile}, as they are now: the file is polled and read again when its
 * content changes (an edit, or a new file moved in its place), so
 * that revoking a token (removing its line) or changing its permissions needs no restart. A file
 * that breaks a rule on reload is refused whole and the tokens before it stay (logged).
 *
 * <p>Only hashes are held. A presented token is hashed and compared with every entry in constant
 * time, so neither a match's position nor a near miss shows in the time an answer takes.
 */
public final class StaticTokens {
  private static final Logger log = LoggerFactory.getLogger(StaticTokens.class);

  private final Path file;
  private volatile List<TokenFile.Entry> entries;
  private volatile byte[] contentHash;
  private final Sinks.Many<Integer> reloads = Sinks.many().multicast().directBestEffort();

  private StaticTokens(Path file, List<TokenFile.Entry> entries, byte[] contentHash) {
    this.file = file;
    this.entries = entries;
    this.contentHash = contentHash;
  }

  /** Reads the file; a file that breaks a rule is refused naming the entry and the rule. Blocking. */
  public static StaticTokens read(Path file) throws IOException {
    byte[] content = Files.readAllBytes(file);
    return new StaticTokens(file, TokenFile.parse(content, file), sha256(content));
  }

  public Path file() {
    return file;
  }

  public int size() {
    return entries.size();
  }

  /** The entry whose token this is, if any. */
  public Optional<TokenFile.Entry> match(String token) {
    return byHash(sha256(token));
  }

  /** The entry of a token's hash as the file says now: empty once the token is revoked. */
  public Optional<TokenFile.Entry> byHash(byte[] sha256) {
    TokenFile.Entry found = null;
    for (TokenFile.Entry entry : entries) { // every entry, match or not: the time does not tell which
      if (MessageDigest.isEqual(entry.sha256(), sha256) && found == null) {
        found = entry;
      }
    }
    return Optional.ofNullable(found);
  }

  /** The entry a TLS client certificate with this subject common name speaks for, as the file says now. */
  public Optional<TokenFile.Entry> byCertificate(String commonName) {
    for (TokenFile.Entry entry : entries) {
      if (entry.clientCertificate() && entry.principal().name().equals(commonName)) {
        return Optional.of(entry);
      }
    }
    return Optional.empty();
  }

  /** Emits after each reload that changed the tokens. */
  public Flux<Integer> reloads() {
    return reloads.asFlux();
  }

  /**
   * Reads the file again if it changed since it was last read. Blocking: file I/O.
   *
   * @return whether the tokens changed
   */
  public boolean reloadIfChanged() {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (IOException e) {
      log.error("token file {} cannot be read ({}); the tokens read before stay in force", file, e.toString());
      return false;
    }
    byte[] now = sha256(content);
    if (MessageDigest.isEqual(now, contentHash)) {
      return false;
    }
    contentHash = now; // a refused file is refused once, not at every poll
    try {
      List<TokenFile.Entry> read = TokenFile.parse(content, file);
      entries = read;
      log.info("token file {} read again: {} token(s)", file, read.size());
      reloads.tryEmitNext(read.size());
      return true;
    } catch (IllegalArgumentException e) {
      log.error("token file {} refused, the tokens read before stay in force: {}", file, e.getMessage());
      return false;
    }
  }

  /** Polls the file for changes every {@code every}, on {@code scheduler} (one that may block). */
  public Disposable watch(Duration every, Scheduler scheduler) {
    return Flux.interval(every, every, scheduler).subscribe(tick -> reloadIfChanged());
  }

  /** The SHA-256 of a token's UTF-8 bytes, as a token file holds it. */
  public static byte[] sha256(String token) {
    return sha256(token.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  @Override
  public String toString() {
    return "StaticTokens[" + file + ", " + entries.size() + " token(s)]";
  }
}
