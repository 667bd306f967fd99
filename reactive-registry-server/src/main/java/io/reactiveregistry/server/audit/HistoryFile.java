package io.reactiveregistry.server.audit;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.TraceEvent;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The audit trail appended to a JSON-lines file, one TraceEvent a line, for a log shipper
 * (Filebeat, Vector, Fluent Bit) to carry off. Past {@code maxBytes} the file is rotated as
 * logrotate would: {@code audit.jsonl} becomes {@code audit.jsonl.1}, the older ones move up, and
 * the one past {@code keep} is deleted.
 *
 * <p>Changes are handed over in memory (under the registry's monitor, so never to the disk from
 * there) and written by one thread of its own. Should the disk fall {@value #QUEUE} events behind,
 * the newest are dropped and counted rather than stall the registry; the count is a meter and is
 * logged.
 */
public final class HistoryFile implements Disposable {
  private static final Logger log = LoggerFactory.getLogger(HistoryFile.class);
  static final int QUEUE = 65_536;
  private static final byte[] NEWLINE = {'\n'};

  private final Path path;
  private final long maxBytes;
  private final int keep;
  private final BlockingQueue<TraceEvent> queue = new ArrayBlockingQueue<>(QUEUE);
  private final AtomicLong dropped = new AtomicLong();
  private final Thread writer;
  private volatile boolean closed;
  private OutputStream out;
  private long written;

  public HistoryFile(Path path, long maxBytes, int keep) throws IOException {
    this.path = path.toAbsolutePath();
    this.maxBytes = maxBytes;
    this.keep = keep;
    Path parent = this.path.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    open();
    this.writer = new Thread(this::run, "registry-history-file");
    writer.setDaemon(true);
    writer.start();
  }

  /** Hands an event over to be written; never waits. */
  public void offer(TraceEvent event) {
    if (!queue.offer(event)) {
      dropped.incrementAndGet();
    }
  }

  /** Events not written because the disk was too far behind. */
  public long dropped() {
    return dropped.get();
  }

  private void open() throws IOException {
    written = Files.exists(path) ? Files.size(path) : 0;
    out = new BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
        64 * 1024);
  }

  private void run() {
    List<TraceEvent> batch = new ArrayList<>(1024);
    long reportedDrops = 0;
    while (!closed || !queue.isEmpty()) {
      try {
        TraceEvent first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, 1023);
        for (TraceEvent event : batch) {
          write(JsonCodec.json().encode(event));
        }
        batch.clear();
        if (queue.isEmpty()) {
          out.flush(); // a quiet moment: what was written is on its way to the disk
        }
        long drops = dropped.get();
        if (drops > reportedDrops) {
          log.warn("audit history file {}: {} changes dropped so far (the disk fell {} changes behind)", path, drops,
              QUEUE);
          reportedDrops = drops;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (IOException | RuntimeException e) {
        batch.clear();
        log.error("audit history file {}: writing failed; the changes of the moment are lost, writing goes on", path,
            e);
      }
    }
    try {
      out.close();
    } catch (IOException e) {
      log.warn("audit history file {}: closing failed", path, e);
    }
  }

  private void write(byte[] line) throws IOException {
    if (written > 0 && written + line.length + 1 > maxBytes) {
      rotate();
    }
    out.write(line);
    out.write(NEWLINE);
    written += line.length + 1;
  }

  /** audit.jsonl → audit.jsonl.1 → ... → audit.jsonl.{keep}, the oldest deleted. */
  private void rotate() throws IOException {
    out.close();
    Files.deleteIfExists(numbered(keep));
    for (int n = keep - 1; n >= 1; n--) {
      if (Files.exists(numbered(n))) {
        Files.move(numbered(n), numbered(n + 1), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    if (keep > 0) {
      Files.move(path, numbered(1), StandardCopyOption.REPLACE_EXISTING);
    } else {
      Files.delete(path);
    }
    open();
  }

  private Path numbered(int n) {
    return path.resolveSibling(path.getFileName() + "." + n);
  }

  /** Writes what is queued, then closes the file (waiting at most 5 s). */
  @Override
  public void dispose() {
    closed = true;
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public boolean isDisposed() {
    return closed;
  }
}
