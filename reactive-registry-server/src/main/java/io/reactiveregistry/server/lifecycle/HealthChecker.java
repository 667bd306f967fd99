package io.reactiveregistry.server.lifecycle;

import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.reactiveregistry.server.core.Command;
import io.reactiveregistry.server.core.HealthCheck;
import io.reactiveregistry.server.core.HealthTarget;
import io.reactiveregistry.server.core.RegistryReads;
import io.reactiveregistry.server.core.ServiceKey;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.BufferOverflowStrategy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.tcp.TcpClient;

/**
 * Checks persistent instances, which cannot heartbeat: every interval, each instance once, the
 * checks spread evenly over the interval (no bursts), at most {@code concurrency} at a time, each
 * bounded by a timeout. A TCP connect by default; an HTTP GET of the instance's
 * {@code health.http.path} metadata when set (2xx or 3xx is healthy). A service can turn checks
 * off ({@code health.check.enabled=false}) or set its own timeout ({@code health.check.timeout},
 * milliseconds) in its metadata; an instance can turn its own checks off the same way. All I/O is
 * Reactor Netty's, non-blocking.
 */
public final class HealthChecker {
  private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);
  static final String TIMEOUT_KEY = "health.check.timeout";
  /**
   * Checks started on schedule but waiting for a place among the {@code concurrency} in flight:
   * when checks cannot keep up, the oldest waiting one is dropped (its instance comes round again).
   */
  private static final int MAX_QUEUED_CHECKS = 100_000;

  private final RegistryRuntime runtime;
  private final Duration interval;
  private final Duration timeout;
  private final int concurrency;
  private final Probe probe;
  private final TcpClient tcp = TcpClient.newConnection();
  private final HttpClient http;
  /**
   * For {@code health.http.scheme=https}: made once, when the first such instance is checked, on a
   * thread that may block (its trust is read from files).
   */
  private final Mono<HttpClient> https;
  private volatile Predicate<ServiceKey> share = service -> true;

  /** Looks at one instance: its verdict within {@code limit}, and why. */
  @FunctionalInterface
  interface Probe {
    Mono<Verdict> check(HealthTarget target, Duration limit);
  }

  /** A probe's answer: healthy or not, and what it saw ("connected", "HTTP 503"...). */
  record Verdict(boolean healthy, String reason) {}

  /**
   * @param caFile the CA certificates https checks trust; null: the JVM's trust store
   * @param node this server's node id, named in the {@code User-Agent} of HTTP checks so that an
   *     instance's access log says which member checked it
   */
  public HealthChecker(RegistryRuntime runtime, Duration interval, Duration timeout, int concurrency,
      @Nullable Path caFile, String node) {
    this(runtime, interval, timeout, concurrency, null, caFile, node);
  }

  /** With a probe of the test's own instead of the network (null: TCP or HTTP, as configured). */
  HealthChecker(RegistryRuntime runtime, Duration interval, Duration timeout, int concurrency, Probe probe) {
    this(runtime, interval, timeout, concurrency, probe, null, "test");
  }

  private HealthChecker(RegistryRuntime runtime, Duration interval, Duration timeout, int concurrency,
      @Nullable Probe probe, @Nullable Path caFile, String node) {
    this.http = HttpClient.newConnection().followRedirect(false)
        .headers(headers -> headers.set(HttpHeaderNames.USER_AGENT, "reactive-registry-health-check (node " + node
            + ")"));
    this.https = Mono.fromCallable(() -> httpsTrust(caFile))
        .subscribeOn(Schedulers.boundedElastic())
        .map(trust -> http.secure(spec -> spec.sslContext(trust)))
        .cache();
    this.runtime = runtime;
    this.interval = interval;
    this.timeout = timeout;
    this.concurrency = concurrency;
    this.probe = probe != null ? probe
        : (target, limit) -> target.httpPath() == null ? connects(target, limit) : answers(target);
  }

  /**
   * Checks only the services {@code share} gives this server: in a cluster each member checks its
   * share ({@code cluster.CheckShare}), so that each persistent instance is checked by one member;
   * the verdicts are committed and every member shows them. Asked again at each round and before
   * each check, so a lost member's services are checked by the others from their next round on.
   * Call before {@link #start}.
   */
  public HealthChecker onlyFor(Predicate<ServiceKey> share) {
    this.share = share;
    return this;
  }

  /**
   * Starts checking on {@code scheduler}: a round every interval, the first at once. Rounds only
   * decide when each check starts; the checks of every round run in one pool of at most
   * {@code concurrency}, so a slow check delays the checks queued behind it, never the schedule.
   */
  public Disposable start(Scheduler scheduler) {
    return Flux.defer(() -> round(scheduler))
        .repeat()
        .onBackpressureBuffer(MAX_QUEUED_CHECKS,
            dropped -> log.debug("health checks cannot keep up: dropped the oldest queued check"),
            BufferOverflowStrategy.DROP_OLDEST)
        .flatMap(target -> check(target, scheduler), concurrency)
        .subscribe(null, error -> log.error("health checks stopped", error));
  }

  /**
   * One round: every persistent instance, the i-th at i × (interval / count) from the round's
   * start, from one ticker rather than a delay per check, so the schedule never depends on how
   * long checks take. Completes one interval after it started.
   */
  Flux<HealthTarget> round(Scheduler scheduler) {
    // Decided once a service per round: a service has many instances, and the share asks which
    // members are up each time.
    Predicate<ServiceKey> share = this.share;
    Map<ServiceKey, Boolean> mine = new HashMap<>();
    List<HealthTarget> targets = runtime.read(RegistryReads::healthTargets).stream()
        .filter(target -> mine.computeIfAbsent(target.service(), share::test)).toList();
    if (targets.isEmpty()) {
      return Mono.delay(interval, scheduler).thenMany(Flux.empty());
    }
    Duration spacing = Duration.ofNanos(Math.max(1, interval.toNanos() / targets.size()));
    return Flux.interval(Duration.ZERO, spacing, scheduler)
        .take(targets.size())
        .map(i -> targets.get(i.intValue()))
        .concatWith(Mono.delay(spacing, scheduler).then(Mono.empty()));
  }

  private Mono<Void> check(HealthTarget target, Scheduler scheduler) {
    if (target.checksOff() || !share.test(target.service())) {
      return Mono.empty();
    }
    Duration limit = timeoutOf(target.serviceMetadata());
    long started = scheduler.now(TimeUnit.MILLISECONDS);
    return Mono.defer(() -> probe.check(target, limit))
        .timeout(limit, Mono.fromSupplier(() -> new Verdict(false, "timed out after " + limit.toMillis() + " ms")),
            scheduler)
        .onErrorResume(error -> Mono.just(new Verdict(false, HealthFailures.describe(error, limit))))
        .doOnNext(verdict -> {
          long ended = scheduler.now(TimeUnit.MILLISECONDS);
          runtime.execute(new Command.RecordHealth(target.service(), target.instanceId(),
              new HealthCheck(ended, verdict.healthy(), ended - started, verdict.reason())));
        })
        .then();
  }

  private Mono<Verdict> connects(HealthTarget target, Duration limit) {
    return tcp.host(target.ip()).port(target.port())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, limit.toMillis()))
        .connect()
        .map(connection -> {
          connection.dispose();
          return new Verdict(true, "connected");
        });
  }

  private Mono<Verdict> answers(HealthTarget target) {
    String path = target.httpPath().startsWith("/") ? target.httpPath() : "/" + target.httpPath();
    String host = target.ip().indexOf(':') >= 0 ? "[" + target.ip() + "]" : target.ip();
    String uri = (target.https() ? "https://" : "http://") + host + ":" + target.port() + path;
    return (target.https() ? https : Mono.just(http)).flatMap(client -> client.get().uri(uri)
        .responseSingle((response, body) -> body.then(Mono.just(response.status().code())))
        .map(status -> new Verdict(status >= 200 && status < 400, "HTTP " + status)));
  }

  /**
   * What https checks trust: the CA certificates of {@code caFile}, or the JVM's trust store when
   * null. An instance's certificate must chain to them and name its registered address. Blocking
   * (reads files).
   */
  static SslContext httpsTrust(@Nullable Path caFile) {
    try {
      SslContextBuilder trust = SslContextBuilder.forClient();
      if (caFile != null) {
        trust.trustManager(caFile.toFile());
      }
      return trust.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("https health checks cannot trust " + caFile + ": " + e.getMessage(), e);
    }
  }

  private Duration timeoutOf(Map<String, String> serviceMetadata) {
    String value = serviceMetadata.get(TIMEOUT_KEY);
    if (value == null) {
      return timeout;
    }
    try {
      long millis = Long.parseLong(value);
      return millis > 0 ? Duration.ofMillis(millis) : timeout;
    } catch (NumberFormatException e) {
      log.debug("ignoring {}={} (not whole milliseconds)", TIMEOUT_KEY, value);
      return timeout;
    }
  }
}
