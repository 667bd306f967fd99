package io.reactiveregistry.server.audit;

import io.reactiveregistry.protocol.message.TraceEvent;
import io.reactiveregistry.protocol.message.TraceHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The audit trail this member keeps: its last {@link Settings#maxEvents} changes, none older than
 * {@link Settings#maxAge}, for {@code admin.trace.query}. Events are kept as the immutable
 * TraceEvents the live trace sends (their strings shared with the registry's own), so keeping one
 * costs an object, not a copy of the instance; about 120 bytes each (load-tests/RESULTS.md).
 */
public final class AuditHistory {
  /** How many events a query answers when it names no limit, and at most. */
  public static final int DEFAULT_LIMIT = 1_000;
  public static final int MAX_LIMIT = 10_000;

  /**
   * How much history is kept in memory, by count and by age; and the JSON-lines file it is also
   * appended to ({@link HistoryFile}), if any, rotated past {@code fileMaxBytes}, {@code fileKeep}
   * rotated files kept.
   */
  public record Settings(int maxEvents, Duration maxAge, @Nullable Path file, long fileMaxBytes, int fileKeep) {
    public static final Settings DEFAULTS = new Settings(100_000, Duration.ofHours(24), null, 100L << 20, 5);

    public Settings(int maxEvents, Duration maxAge) {
      this(maxEvents, maxAge, DEFAULTS.file, DEFAULTS.fileMaxBytes, DEFAULTS.fileKeep);
    }

    public Settings {
      if (maxEvents < 0) {
        throw new IllegalArgumentException("the history's size must be 0 (none kept) or more: " + maxEvents);
      }
      if (maxAge.toMillis() < 1) {
        throw new IllegalArgumentException("the history's age must be at least 1 ms: " + maxAge);
      }
      if (fileMaxBytes < 1024) {
        throw new IllegalArgumentException("the history file's size before rotation must be at least 1024 bytes: "
            + fileMaxBytes);
      }
      if (fileKeep < 0) {
        throw new IllegalArgumentException("the rotated history files kept must be 0 or more: " + fileKeep);
      }
    }
  }

  /** What a query asks for; a null field matches everything; {@code until} is exclusive. */
  public record Query(@Nullable String namespace, @Nullable String group, @Nullable String service,
      @Nullable String instanceId, @Nullable String cause, @Nullable String principal, @Nullable Long since,
      @Nullable Long until, int limit) {

    boolean matches(TraceEvent event) {
      long time = event.time() == null ? 0 : event.time();
      return (namespace == null || namespace.equals(event.namespace()))
          && (group == null || group.equals(event.group()))
          && (service == null || service.equals(event.service()))
          && (instanceId == null || instanceId.equals(event.instanceId()))
          && (cause == null || cause.equals(event.cause()))
          && (principal == null || principal.equals(event.principal()))
          && (since == null || time >= since)
          && (until == null || time < until);
    }
  }

  private final Settings settings;
  private final InstantSource clock;
  private final ArrayDeque<TraceEvent> events = new ArrayDeque<>();
  private final @Nullable HistoryFile file;

  public AuditHistory(Settings settings, InstantSource clock) {
    this(settings, clock, null);
  }

  /** With {@code file}, every event is also appended there. */
  public AuditHistory(Settings settings, InstantSource clock, @Nullable HistoryFile file) {
    this.settings = settings;
    this.clock = clock;
    this.file = file;
  }

  /** Keeps an event (in time order: the registry's changes come in revision order), dropping what is now too old. */
  public synchronized void add(TraceEvent event) {
    if (file != null) {
      file.offer(event);
    }
    if (settings.maxEvents() == 0) {
      return;
    }
    if (events.size() == settings.maxEvents()) {
      events.pollFirst();
    }
    events.addLast(event);
    dropOlderThan(event.time() - settings.maxAge().toMillis());
  }

  /** The newest {@code query.limit()} matching events, oldest first. */
  public TraceHistory query(Query query) {
    TraceEvent[] kept;
    synchronized (this) {
      dropOlderThan(clock.millis() - settings.maxAge().toMillis());
      // A copy of the references, so that a long scan does not hold up the registry's changes.
      kept = events.toArray(new TraceEvent[0]);
    }
    List<TraceEvent> matched = new ArrayList<>(Math.min(query.limit(), 64));
    boolean truncated = false;
    for (int i = kept.length - 1; i >= 0; i--) {
      TraceEvent event = kept[i];
      if (query.since() != null && event.time() < query.since()) {
        break; // older still from here on
      }
      if (query.matches(event)) {
        if (matched.size() == query.limit()) {
          truncated = true;
          break;
        }
        matched.add(event);
      }
    }
    Collections.reverse(matched);
    return new TraceHistory(matched, truncated, kept.length == 0 ? null : kept[0].time());
  }

  /** Events the history file dropped because the disk fell behind (0 without a file). */
  public long fileDropped() {
    return file == null ? 0 : file.dropped();
  }

  /** How many events are kept now. */
  public synchronized int size() {
    return events.size();
  }

  private void dropOlderThan(long oldest) {
    TraceEvent first;
    while ((first = events.peekFirst()) != null && first.time() < oldest) {
      events.pollFirst();
    }
  }
}
