package io.reactiveregistry.loadtest.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Everything a run measures. Latencies go into one HdrHistogram per request name for the whole
 * run and one per name and second for the time series. Thread-safe; recording never blocks.
 */
public final class Metrics {
  /** Latencies are recorded in microseconds, from 1 µs to 10 minutes, with 3 significant digits. */
  private static final long HIGHEST_US = TimeUnit.MINUTES.toMicros(10);

  private final long startNanos;
  private final Map<String, Series> series = new ConcurrentHashMap<>();
  private final AtomicInteger activeUsers = new AtomicInteger();
  private final ConcurrentSkipListMap<Long, Integer> activeUsersBySecond = new ConcurrentSkipListMap<>();
  /** How often each request failed with each message: the report's errors table. */
  private final Map<ErrorKey, AtomicLong> errors = new ConcurrentHashMap<>();

  /** A failure's request and message. */
  public record ErrorKey(String request, String message) {}

  /** One error of {@code request}, by what it said (a contract error's JSON, a failed check, a timeout). */
  public void recordError(String request, String message) {
    errors.computeIfAbsent(new ErrorKey(request, message), key -> new AtomicLong()).incrementAndGet();
  }

  /** The errors seen, most frequent first, then by request and message. */
  public List<ErrorCount> errors() {
    List<ErrorCount> out = new ArrayList<>();
    errors.forEach((key, count) -> out.add(new ErrorCount(key.request(), key.message(), count.get())));
    out.sort(java.util.Comparator.comparingLong(ErrorCount::count).reversed()
        .thenComparing(ErrorCount::request).thenComparing(ErrorCount::message));
    return out;
  }

  /** A line of the errors table. */
  public record ErrorCount(String request, String message, long count) {}
  private volatile long endNanos;

  public Metrics() {
    this.startNanos = System.nanoTime();
  }

  private static final class Series {
    final Histogram all = new ConcurrentHistogram(HIGHEST_US, 3);
    final AtomicLong ok = new AtomicLong();
    final AtomicLong ko = new AtomicLong();
    final Map<Long, Histogram> bySecond = new ConcurrentHashMap<>();
    final Map<Long, AtomicLong> koBySecond = new ConcurrentHashMap<>();
    volatile long firstNanos = Long.MAX_VALUE;
    volatile long lastNanos;
  }

  public long startNanos() {
    return startNanos;
  }

  /** Records one request that started at {@code startNanos} (its intended start, in open models). */
  public void record(String name, long startNanos, long endNanos, boolean ok) {
    Series s = series.computeIfAbsent(name, k -> new Series());
    long second = Math.max(0, (endNanos - this.startNanos) / 1_000_000_000L);
    if (ok) {
      long micros = Math.max(1, Math.min(HIGHEST_US, (endNanos - startNanos) / 1_000));
      s.all.recordValue(micros);
      s.bySecond.computeIfAbsent(second, k -> new ConcurrentHistogram(HIGHEST_US, 2)).recordValue(micros);
      s.ok.incrementAndGet();
    } else {
      s.ko.incrementAndGet();
      s.koBySecond.computeIfAbsent(second, k -> new AtomicLong()).incrementAndGet();
    }
    if (startNanos < s.firstNanos) {
      s.firstNanos = startNanos;
    }
    if (endNanos > s.lastNanos) {
      s.lastNanos = endNanos;
    }
  }

  /** Successful requests of {@code name} recorded so far, by every user. */
  public long okCount(String name) {
    Series s = series.get(name);
    return s == null ? 0 : s.ok.get();
  }

  public void recordOk(String name, long startNanos) {
    record(name, startNanos, System.nanoTime(), true);
  }

  public void recordKo(String name, long startNanos) {
    record(name, startNanos, System.nanoTime(), false);
  }

  public void userStarted() {
    sampleUsers(activeUsers.incrementAndGet());
  }

  public void userEnded() {
    sampleUsers(activeUsers.decrementAndGet());
  }

  private void sampleUsers(int now) {
    long second = (System.nanoTime() - startNanos) / 1_000_000_000L;
    activeUsersBySecond.merge(second, now, Math::max);
  }

  public void finish() {
    endNanos = System.nanoTime();
  }

  public double elapsedSeconds() {
    long end = endNanos == 0 ? System.nanoTime() : endNanos;
    return (end - startNanos) / 1e9;
  }

  /** Summaries, sorted by name. */
  public List<RequestStats> stats() {
    List<RequestStats> stats = new ArrayList<>();
    new TreeMap<>(series).forEach((name, s) -> stats.add(summarize(name, s)));
    return stats;
  }

  private static RequestStats summarize(String name, Series s) {
    Histogram h = s.all;
    long ok = s.ok.get();
    long ko = s.ko.get();
    double span = s.lastNanos > s.firstNanos ? (s.lastNanos - s.firstNanos) / 1e9 : 0;
    double rate = span > 0 ? ok / span : ok;
    boolean any = h.getTotalCount() > 0;
    return new RequestStats(name, ok + ko, ok, ko, any ? h.getMinValue() : 0, h.getValueAtPercentile(50),
        h.getValueAtPercentile(75), h.getValueAtPercentile(95), h.getValueAtPercentile(99), any ? h.getMaxValue() : 0,
        any ? h.getMean() : 0, rate);
  }

  /**
   * The successful latencies of {@code request} over the whole run, exactly as recorded ("*": every
   * request, the scenarios left out); null when there is none.
   */
  public Histogram latencies(String request) {
    if (!request.equals("*")) {
      Series s = series.get(request);
      return s == null || s.all.getTotalCount() == 0 ? null : s.all.copy();
    }
    Histogram all = new Histogram(HIGHEST_US, 3);
    series.forEach((name, s) -> {
      if (!name.startsWith("scenario:")) {
        all.add(s.all);
      }
    });
    return all.getTotalCount() == 0 ? null : all;
  }

  /** Failed requests of {@code request} ("*": every request, the scenarios left out). */
  public long failed(String request) {
    long ko = 0;
    for (Map.Entry<String, Series> named : series.entrySet()) {
      boolean counted = request.equals("*") ? !named.getKey().startsWith("scenario:") : named.getKey().equals(request);
      ko += counted ? named.getValue().ko.get() : 0;
    }
    return ko;
  }

  /** Each request's per-second histograms (successful latencies, µs), seconds in order; scenarios left out. */
  public Map<String, Map<Long, Histogram>> histogramsBySecond() {
    Map<String, Map<Long, Histogram>> out = new TreeMap<>();
    series.forEach((name, s) -> {
      if (!name.startsWith("scenario:")) {
        out.put(name, new TreeMap<>(s.bySecond));
      }
    });
    return out;
  }

  /** Users active now. */
  public int activeUsers() {
    return activeUsers.get();
  }

  /** What the requests (not the scenarios) did in seconds {@code [from, to)} of the run, all names together. */
  public record Period(long ok, long ko, long p50Us, long p99Us) {}

  public Period period(long fromSecond, long toSecond) {
    Histogram merged = new Histogram(HIGHEST_US, 2);
    long ko = 0;
    for (Map.Entry<String, Series> named : series.entrySet()) {
      if (named.getKey().startsWith("scenario:")) {
        continue;
      }
      for (long second = fromSecond; second < toSecond; second++) {
        Histogram h = named.getValue().bySecond.get(second);
        if (h != null) {
          merged.add(h);
        }
        AtomicLong failed = named.getValue().koBySecond.get(second);
        ko += failed == null ? 0 : failed.get();
      }
    }
    boolean any = merged.getTotalCount() > 0;
    return new Period(merged.getTotalCount(), ko, any ? merged.getValueAtPercentile(50) : 0,
        any ? merged.getValueAtPercentile(99) : 0);
  }

  /** One point per second of the run. */
  public record SecondPoint(long second, long ok, long ko, long p50Us, long p95Us, long p99Us) {}

  public Map<String, List<SecondPoint>> timeSeries() {
    long seconds = (long) Math.ceil(elapsedSeconds());
    Map<String, List<SecondPoint>> out = new TreeMap<>();
    series.forEach((name, s) -> {
      List<SecondPoint> points = new ArrayList<>();
      for (long second = 0; second <= seconds; second++) {
        Histogram h = s.bySecond.get(second);
        AtomicLong ko = s.koBySecond.get(second);
        points.add(new SecondPoint(second, h == null ? 0 : h.getTotalCount(), ko == null ? 0 : ko.get(),
            h == null ? 0 : h.getValueAtPercentile(50), h == null ? 0 : h.getValueAtPercentile(95),
            h == null ? 0 : h.getValueAtPercentile(99)));
      }
      out.put(name, points);
    });
    return out;
  }

  /** The most users active at once in each second of the run. */
  public List<Integer> activeUsersPerSecond() {
    long seconds = (long) Math.ceil(elapsedSeconds());
    List<Integer> users = new ArrayList<>();
    int last = 0;
    for (long second = 0; second <= seconds; second++) {
      Integer sample = activeUsersBySecond.get(second);
      last = sample == null ? last : sample;
      users.add(last);
    }
    return users;
  }
}
