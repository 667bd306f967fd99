package io.reactiveregistry.server.metrics;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.LatencyBuckets;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.server.core.TraceContext;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Every meter of the server. Names follow Micrometer's conventions (dots, lower case); the
 * Prometheus registry renders them as {@code registry_requests_seconds}, and so on. The README
 * lists them.
 */
public final class ServerMeters {
  /**
   * The histogram buckets of every latency the server measures (requests, pushes, commits,
   * replication lag): {@link LatencyBuckets}, the same on every member and client, so that
   * {@code histogram_quantile} over a cluster's {@code _bucket} series adds them up; recorded
   * lock-free (an array of counters).
   */
  public static final Duration[] LATENCY_BUCKETS = LatencyBuckets.all();

  private final MeterRegistry registry;
  /**
   * Each route's timers, ok and error, made at its first request: a histogram is 20 series, and a
   * scrape need not carry them for the routes and outcomes a member never served.
   */
  private final AtomicReferenceArray<Timer> requests = new AtomicReferenceArray<>(Route.values().length * 2);
  private final Map<ErrorCode, Counter> errors = new EnumMap<>(ErrorCode.class);
  private final Counter heartbeats;
  private final Counter heartbeatsDropped;
  private final Counter eventsPushed;
  private final Timer pushLatency;
  private final Counter keepAlivesDropped;
  private final PushExemplars exemplars;

  public ServerMeters(MeterRegistry registry) {
    this(registry, new PushExemplars());
  }

  private ServerMeters(MeterRegistry registry, PushExemplars exemplars) {
    this.registry = registry;
    this.exemplars = exemplars;
    for (ErrorCode code : ErrorCode.values()) {
      errors.put(code, Counter.builder("registry.errors").tag("code", code.name())
          .description("requests refused, by contract error code").register(registry));
    }
    heartbeats = Counter.builder("registry.heartbeats").description("heartbeats received").register(registry);
    heartbeatsDropped = Counter.builder("registry.heartbeats.dropped")
        .description("heartbeats that could not be applied (invalid, or for another connection's instance)")
        .register(registry);
    eventsPushed = Counter.builder("registry.events.pushed")
        .description("subscription events handed to subscriber connections").register(registry);
    pushLatency = Timer.builder("registry.push.latency")
        .description("from a change being made to its event being handed to a subscriber's connection")
        .serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
    keepAlivesDropped = Counter.builder("registry.keepalives.dropped")
        .description("KEEPALIVE frames left unanswered: past the rate one connection may ask answers at")
        .register(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    PooledByteBufAllocator netty = PooledByteBufAllocator.DEFAULT;
    Gauge.builder("netty.allocator.memory.used", netty, a -> a.metric().usedDirectMemory()).tag("type", "direct")
        .baseUnit("bytes").description("memory used by Netty's pooled allocator").register(registry);
    Gauge.builder("netty.allocator.memory.used", netty, a -> a.metric().usedHeapMemory()).tag("type", "heap")
        .baseUnit("bytes").description("memory used by Netty's pooled allocator").register(registry);
    Gauge.builder("netty.direct.memory.max", PlatformDependent::maxDirectMemory).baseUnit("bytes")
        .description("the ceiling on direct memory: the JVM's -XX:MaxDirectMemorySize, by default the heap's size")
        .register(registry);
  }

  private Timer requestTimer(Route route, boolean ok) {
    int slot = route.ordinal() * 2 + (ok ? 0 : 1);
    Timer timer = requests.get(slot);
    if (timer == null) { // two first requests may both register it: Micrometer answers the same timer
      timer = Timer.builder("registry.requests").tag("route", route.routeName()).tag("outcome", ok ? "ok" : "error")
          .description("requests served, by route and outcome").serviceLevelObjectives(LATENCY_BUCKETS)
          .register(registry);
      requests.set(slot, timer);
    }
    return timer;
  }

  /** A gauge over a value read when scraped. */
  public <T> void gauge(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
    // Micrometer holds a gauge's state weakly; callers pass lambdas that live nowhere else.
    Gauge.builder(name, source, value).strongReference(true).tags(tags).description(description).register(registry);
  }

  public void gauge(String name, String description, Supplier<Number> value, String... tags) {
    Gauge.builder(name, value).strongReference(true).tags(tags).description(description).register(registry);
  }

  /** A counter kept elsewhere, read when scraped. */
  public <T> void counter(String name, String description, T source, ToDoubleFunction<T> value, String... tags) {
    FunctionCounter.builder(name, source, value).tags(tags).description(description).register(registry);
  }

  public void request(Route route, long startNanos, ErrorCode error) {
    Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
    if (error == null) {
      requestTimer(route, true).record(took);
    } else {
      requestTimer(route, false).record(took);
      errors.get(error).increment();
    }
  }

  /** A refusal before the route was known (no route, unknown route, malformed metadata). */
  public void error(ErrorCode code) {
    errors.get(code).increment();
  }

  public void heartbeats(int count) {
    heartbeats.increment(count);
  }

  public void heartbeatDropped() {
    heartbeatsDropped.increment();
  }

  public void keepAliveDropped() {
    keepAlivesDropped.increment();
  }

  /**
   * The server's meters on a Prometheus registry whose push-latency buckets carry, as exemplars,
   * the traces of traced changes' pushes.
   */
  public static ServerMeters prometheus() {
    PushExemplars exemplars = new PushExemplars();
    return new ServerMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(),
        Clock.SYSTEM, exemplars), exemplars);
  }

  /** Where the meters are: scraped by {@code /metrics}. */
  public MeterRegistry registry() {
    return registry;
  }

  /** An event handed to a subscriber's connection; {@code trace}, its change's span when traced. */
  public void pushed(long changedAtNanos, @Nullable TraceContext trace) {
    eventsPushed.increment();
    Duration latency = Duration.ofNanos(System.nanoTime() - changedAtNanos);
    if (trace == null) {
      pushLatency.record(latency);
      return;
    }
    exemplars.naming(trace);
    try {
      pushLatency.record(latency);
    } finally {
      exemplars.naming(null);
    }
  }

  /** A timer of how long durable changes take to commit, for servers that keep a data directory. */
  public LongConsumer storageCommitLatency() {
    Timer timer = Timer.builder("registry.storage.commit")
        .description("from a command's durable changes being queued to their commit (written and fsync'd)")
        .serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
    return nanos -> timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Connections a port closed as soon as it accepted them: past the port's limit ({@code limit=port})
   * or a remote address's ({@code limit=address}).
   */
  public Counter connectionsRefused(String port, String limit) {
    return Counter.builder("registry.connections.refused").tag("port", port).tag("limit", limit)
        .description("connections refused: past a port's or a remote address's limit, or by protected mode")
        .register(registry);
  }

  public Counter authenticationsFailed() {
    return Counter.builder("registry.authentications.failed")
        .description("bearer tokens presented that are not valid (unknown, revoked), on every port")
        .register(registry);
  }
}
