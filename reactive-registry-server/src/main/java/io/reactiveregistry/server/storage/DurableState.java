package io.reactiveregistry.server.storage;

import io.reactiveregistry.server.core.DurableChange;
import io.reactiveregistry.server.core.DurableChange.Subject;
import io.reactiveregistry.server.storage.ChangeCodec.StoredChange;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The latest value of every durable subject, as of the last applied log entry: what a snapshot
 * holds and what the core gets back at start. Written by Ratis's apply thread, read at start and
 * by snapshots; synchronized because those may be different threads.
 */
final class DurableState {
  private final Map<Subject, DurableChange> values = new LinkedHashMap<>();
  private long revision;

  /** Snapshot header: the format, and the revision the state was at. */
  record Header(int format, long revision, int values) {}

  private static final int FORMAT = 1;

  synchronized void apply(List<DurableChange> changes, long entryRevision) {
    for (DurableChange change : changes) {
      if (change.removal()) {
        values.remove(change.subject());
      } else {
        values.put(change.subject(), change);
      }
    }
    revision = Math.max(revision, entryRevision);
  }

  /** The committed value of each subject that has one. */
  synchronized List<DurableChange> values(Collection<Subject> subjects) {
    List<DurableChange> found = new ArrayList<>();
    for (Subject subject : subjects) {
      DurableChange value = values.get(subject);
      if (value != null) {
        found.add(value);
      }
    }
    return found;
  }

  /** Every value and the revision they are at, read together. */
  record Copy(List<DurableChange> values, long revision) {}

  synchronized Copy copy() {
    return new Copy(List.copyOf(values.values()), revision);
  }

  /** Replaces the state with {@code seed}'s values at its revision (a backup restored). */
  synchronized void replace(List<DurableChange> seed, long seedRevision) {
    values.clear();
    revision = 0;
    apply(seed, seedRevision);
  }

  synchronized List<DurableChange> values() {
    return List.copyOf(values.values());
  }

  synchronized long revision() {
    return revision;
  }

  synchronized int size() {
    return values.size();
  }

  /**
   * Writes {@code copy} to {@code file} and forces it to disk: a header line, then one line per
   * value. Written from a copy, so that neither the values' readers nor their writer wait for the disk.
   */
  static void write(Copy copy, Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        Writer writer = new BufferedWriter(new OutputStreamWriter(Channels.newOutputStream(channel),
            StandardCharsets.UTF_8), 1 << 16)) {
      writer.write(ChangeCodec.encodeLine(new Header(FORMAT, copy.revision(), copy.values().size())));
      writer.write('\n');
      for (DurableChange value : copy.values()) {
        writer.write(ChangeCodec.encodeLine(ChangeCodec.stored(value)));
        writer.write('\n');
      }
      writer.flush();
      channel.force(true);
    }
  }

  /** Replaces the state with a snapshot's. */
  synchronized void readFrom(Path file) throws IOException {
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      Header header = ChangeCodec.decodeLine(reader.readLine(), Header.class);
      if (header.format() != FORMAT) {
        throw new IOException("snapshot " + file + " has format " + header.format() + "; this server reads "
            + FORMAT);
      }
      List<StoredChange> lines = new ArrayList<>(header.values());
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lines.add(ChangeCodec.decodeLine(line, StoredChange.class));
      }
      if (lines.size() != header.values()) {
        throw new IOException("snapshot " + file + " is truncated: " + lines.size() + " of " + header.values()
            + " values");
      }
      replace(lines.stream().map(ChangeCodec::change).toList(), header.revision());
    }
  }
}
