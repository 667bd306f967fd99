package io.reactiveregistry.loadtest.dsl;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Records for the users to take, Gatling's feeders: from a CSV file (a header row, then one
 * record per line; no quoting), a JSON file (an array of objects) or a list, handed out
 * {@link #circular()}ly (the default), at {@link #random()}, or as a {@link #queue()} that fails the
 * user who finds it empty. {@code Steps.feed(feeder)} puts a record in the user's session, where
 * {@code Steps.registerFed} and {@code Steps.queryFed} read it: {@code service}, {@code ip},
 * {@code port}, {@code cluster}, {@code weight} and {@code metadata.<key>} fields.
 *
 * <p>A file is read when a user first takes a record, not when the feeder is made: a simulation
 * is defined before its parameters are known (to list them, say), and a feeder naming a file that
 * a parameter will replace must not need a file of the default name. A damaged file fails the
 * users who take from it, each with the reason.
 */
public final class Feeder {
  /** How records are handed out. */
  public enum Strategy { CIRCULAR, RANDOM, QUEUE }

  private final String source;
  private final Records records;
  private final Strategy strategy;
  private final AtomicLong taken = new AtomicLong();

  private Feeder(String source, Supplier<List<Map<String, String>>> read, Strategy strategy) {
    this.source = source;
    this.records = new Records(source, read);
    this.strategy = strategy;
  }

  private Feeder(Feeder same, Strategy strategy) {
    this.source = same.source;
    this.records = same.records;
    this.strategy = strategy;
  }

  public static Feeder of(List<Map<String, String>> records) {
    List<Map<String, String>> copied = List.copyOf(records);
    return new Feeder("a list", () -> copied, Strategy.CIRCULAR);
  }

  /** Records from a CSV file, read when a user first takes one. */
  public static Feeder csv(Path file) {
    return new Feeder(file.toString(), () -> readCsv(file), Strategy.CIRCULAR);
  }

  /** Records from a JSON file (an array of objects), read when a user first takes one. */
  public static Feeder json(Path file) {
    return new Feeder(file.toString(), () -> readJson(file), Strategy.CIRCULAR);
  }

  /** Whether the records are at hand: taking one reads no file. */
  public boolean loaded() {
    return records.read != null;
  }

  /** The records, read once, by the first user to take one (the others wait for it). */
  private static final class Records {
    private final String source;
    private final Supplier<List<Map<String, String>>> reader;
    private volatile @Nullable List<Map<String, String>> read;

    Records(String source, Supplier<List<Map<String, String>>> reader) {
      this.source = source;
      this.reader = reader;
    }

    List<Map<String, String>> get() {
      List<Map<String, String>> records = read;
      if (records != null) {
        return records;
      }
      synchronized (this) {
        if (read == null) {
          List<Map<String, String>> fresh = reader.get();
          if (fresh.isEmpty()) {
            throw new IllegalArgumentException(source + " has no records");
          }
          read = List.copyOf(fresh);
        }
        return read;
      }
    }
  }

  private static List<Map<String, String>> readCsv(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank()).toList();
      if (lines.isEmpty()) {
        throw new IllegalArgumentException(file + " is empty: a CSV feeder needs a header row");
      }
      String[] header = lines.get(0).split(",", -1);
      List<Map<String, String>> records = new ArrayList<>();
      for (int i = 1; i < lines.size(); i++) {
        String[] cells = lines.get(i).split(",", -1);
        if (cells.length != header.length) {
          throw new IllegalArgumentException(file + " line " + (i + 1) + " has " + cells.length + " fields, the header "
              + header.length);
        }
        Map<String, String> record = new LinkedHashMap<>();
        for (int c = 0; c < header.length; c++) {
          record.put(header[c].trim(), cells[c].trim());
        }
        records.add(record);
      }
      return records;
    } catch (IOException e) {
      throw new UncheckedIOException("the feeder's file cannot be read: " + e.getMessage(), e);
    }
  }

  private static List<Map<String, String>> readJson(Path file) {
    try {
      List<Map<String, Object>> objects = new ObjectMapper().readValue(file.toFile(), new TypeReference<>() {});
      List<Map<String, String>> records = new ArrayList<>();
      for (Map<String, Object> object : objects) {
        Map<String, String> record = new LinkedHashMap<>();
        object.forEach((key, value) -> flatten(key, value, record));
        records.add(record);
      }
      return records;
    } catch (IOException e) {
      throw new UncheckedIOException("the feeder's file cannot be read: " + e.getMessage(), e);
    }
  }

  /** {@code {"metadata": {"zone": "a"}}} becomes {@code metadata.zone = a}. */
  @SuppressWarnings("unchecked")
  private static void flatten(String key, Object value, Map<String, String> into) {
    if (value instanceof Map<?, ?> nested) {
      ((Map<String, Object>) nested).forEach((inner, v) -> flatten(key + "." + inner, v, into));
    } else {
      into.put(key, String.valueOf(value));
    }
  }

  public Feeder circular() {
    return new Feeder(this, Strategy.CIRCULAR);
  }

  public Feeder random() {
    return new Feeder(this, Strategy.RANDOM);
  }

  public Feeder queue() {
    return new Feeder(this, Strategy.QUEUE);
  }

  public Strategy strategy() {
    return strategy;
  }

  /** The next record; a queue that is empty fails the user who asks. */
  public Map<String, String> next() {
    List<Map<String, String>> records = this.records.get();
    long n = taken.getAndIncrement();
    return switch (strategy) {
      case CIRCULAR -> records.get((int) (n % records.size()));
      case RANDOM -> records.get(ThreadLocalRandom.current().nextInt(records.size()));
      case QUEUE -> {
        if (n >= records.size()) {
          throw new IllegalStateException("the feeder of " + source + " is empty: its " + records.size()
              + " records were taken (a queue hands each out once)");
        }
        yield records.get((int) n);
      }
    };
  }
}
