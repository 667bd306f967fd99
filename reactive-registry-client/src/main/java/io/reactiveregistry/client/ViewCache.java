package io.reactiveregistry.client;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.InstanceBody;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;

/**
 * The last views on disk, so that an application starting while no registry server can be reached
 * has views at once (flagged stale) instead of none (Nacos's failover snapshot, Eureka's backup
 * registry). A view is written when it changes, latest only, off the event loops, to a file of its
 * own: its CRC-32, a line break, then its JSON; written to a temporary file and moved over the
 * old one, so a reader sees the whole old file or the whole new one. A file older than
 * {@code maxAge}, or whose checksum or JSON does not hold, is not used (and says why at warn).
 */
final class ViewCache {
  private static final Logger log = LoggerFactory.getLogger(ViewCache.class);
  private static final JsonCodec json = JsonCodec.json();

  /** A view as kept on disk. */
  record Cached(String namespace, String group, String service, List<String> clusters, boolean healthyOnly,
      @Nullable String selector, long revision, boolean protectionTriggered, List<InstanceBody> instances,
      long writtenAtMillis) {}

  private final Path directory;
  private final Duration maxAge;
  private final Clock clock;
  private final Scheduler writer;
  /** The view waiting to be written, per file: a burst of changes writes the latest once. */
  private final Map<Path, Cached> waiting = new ConcurrentHashMap<>();

  ViewCache(Path directory, Duration maxAge, Clock clock, Scheduler writer) {
    this.directory = directory;
    this.maxAge = maxAge;
    this.clock = clock;
    this.writer = writer;
  }

  /** Keeps {@code view} (written soon, elsewhere). */
  void write(Watches.Key key, ServiceView view) {
    Path file = file(key);
    Cached cached = new Cached(key.service().namespace(), key.service().group(), key.service().service(),
        key.clusters(), key.healthyOnly(), key.selection().selector(), view.revision(), view.protectionTriggered(), view.instances(),
        clock.millis());
    if (waiting.put(file, cached) == null) {
      writer.schedule(() -> flush(file));
    }
  }

  private void flush(Path file) {
    Cached cached = waiting.remove(file);
    if (cached == null) {
      return;
    }
    try {
      byte[] body = json.encode(cached);
      CRC32 crc = new CRC32();
      crc.update(body);
      Files.createDirectories(directory);
      Path temporary = Files.createTempFile(directory, file.getFileName().toString(), ".tmp");
      Files.write(temporary, (HexFormat.of().toHexDigits((int) crc.getValue()) + "\n").getBytes(StandardCharsets.UTF_8));
      Files.write(temporary, body, java.nio.file.StandardOpenOption.APPEND);
      try {
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException notHere) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("could not keep the view of {} in {}: {}", cached.service(), directory, e.toString());
    }
  }

  /** The kept view of {@code key}, stale, if there is one young and whole enough; null otherwise. */
  @Nullable ServiceView read(Watches.Key key) {
    Path file = file(key);
    if (!Files.isRegularFile(file)) {
      return null;
    }
    try {
      byte[] content = Files.readAllBytes(file);
      int newline = indexOf(content, (byte) '\n');
      if (newline != 8) {
        throw new IllegalStateException("no checksum line");
      }
      byte[] body = java.util.Arrays.copyOfRange(content, newline + 1, content.length);
      CRC32 crc = new CRC32();
      crc.update(body);
      String expected = new String(content, 0, newline, StandardCharsets.UTF_8);
      if (!expected.equals(HexFormat.of().toHexDigits((int) crc.getValue()))) {
        throw new IllegalStateException("its checksum does not match its content");
      }
      Cached cached = json.decode(body, Cached.class);
      if (!key.selection().selector().equals(cached.selector() == null ? "" : cached.selector())) {
        return null; // another selector of the same hash: not this view
      }
      Duration age = Duration.ofMillis(clock.millis() - cached.writtenAtMillis());
      if (age.compareTo(maxAge) > 0) {
        log.info("not using the kept view of {}: written {} ago, more than {}", key.service(), age, maxAge);
        return null;
      }
      return new ServiceView(key.service(), cached.revision(), cached.protectionTriggered(), cached.instances(), true);
    } catch (IOException | RuntimeException e) {
      log.warn("not using the kept view of {} ({}): {}", key.service(), file, e.getMessage());
      return null;
    }
  }

  /**
   * One file per view: its names and filters, in characters a file name may hold; a selector (of
   * any characters, up to 1,024 of them) as a hash of its canonical text.
   */
  private Path file(Watches.Key key) {
    String selector = key.selection().selector();
    String name = key.service().namespace() + "~" + key.service().group() + "~" + key.service().service() + "~"
        + String.join(",", key.clusters()) + "~" + (key.healthyOnly() ? "healthy" : "all")
        + (selector.isEmpty() ? "" : "~" + HexFormat.of().toHexDigits(selector.hashCode())) + ".view";
    return directory.resolve(name.replaceAll("[^A-Za-z0-9._,~@:-]", "_"));
  }

  private static int indexOf(byte[] bytes, byte value) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == value) {
        return i;
      }
    }
    return -1;
  }
}
