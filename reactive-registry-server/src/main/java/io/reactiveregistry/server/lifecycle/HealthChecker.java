package io.reactiveregistry.server.lifecycle;

import io.netty.channel.ChannelOption;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.core.Registry.HealthTarget;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.netty.http.client.HttpClient;
import reactor.netty.tcp.TcpClient;

/**
 * Checks persistent instances, which cannot heartbeat: every interval, each instance once, the
 * checks spread evenly over the interval (no bursts), at most {@code concurrency} at a time, each
 * bounded by a timeout. A TCP connect by default; an HTTP GET of the instance's
 * {@code health.http.path} metadata when set (2xx or 3xx is healthy). A service can turn checks
 * off ({@code health.check.enabled=false}) or set its own timeout ({@code health.check.timeout},
 * milliseconds) in its metadata. All I/O is Reactor Netty's, non-blocking.
 */
public final class HealthChecker {
  private static final Logger log = LoggerFactory.getLogger(HealthChecker.class);
  static final String ENABLED_KEY = "health.check.enabled";
  static final String TIMEOUT_KEY = "health.check.timeout";

  private final RegistryRuntime runtime;
  private final Duration interval;
  private final Duration timeout;
  private final int concurrency;
  private final TcpClient tcp = TcpClient.newConnection();
  private final HttpClient http = HttpClient.newConnection().followRedirect(false);

  public HealthChecker(RegistryRuntime runtime, Duration interval, Duration timeout, int concurrency) {
    this.runtime = runtime;
    this.interval = interval;
    this.timeout = timeout;
    this.concurrency = concurrency;
  }

  /** Starts a round every interval on {@code scheduler}. */
  public Disposable start(Scheduler scheduler) {
    return Flux.interval(Duration.ZERO, interval, scheduler)
        .onBackpressureDrop()
        .concatMap(round -> round(scheduler), 1)
        .subscribe();
  }

  /** One round: every persistent instance checked once, spread over the interval. */
  Mono<Void> round(Scheduler scheduler) {
    return Mono.defer(() -> {
      List<HealthTarget> targets = runtime.read(Registry::healthTargets);
      if (targets.isEmpty()) {
        return Mono.empty();
      }
      long spacingNanos = interval.toNanos() / targets.size();
      return Flux.range(0, targets.size())
          .flatMap(i -> Mono.delay(Duration.ofNanos(spacingNanos * i), scheduler)
              .then(check(targets.get(i))), concurrency)
          .then();
    });
  }

  private Mono<Void> check(HealthTarget target) {
    if ("false".equalsIgnoreCase(target.serviceMetadata().get(ENABLED_KEY))) {
      return Mono.empty();
    }
    Duration limit = timeoutOf(target.serviceMetadata());
    Mono<Boolean> probe = target.httpPath() == null ? connects(target, limit) : answers(target);
    return probe
        .timeout(limit, Mono.just(false))
        .onErrorReturn(false)
        .doOnNext(healthy -> runtime.execute(registry -> {
          registry.healthChecked(target.service(), target.instanceId(), healthy);
          return null;
        }))
        .then();
  }

  private Mono<Boolean> connects(HealthTarget target, Duration limit) {
    return tcp.host(target.ip()).port(target.port())
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, limit.toMillis()))
        .connect()
        .map(connection -> {
          connection.dispose();
          return true;
        });
  }

  private Mono<Boolean> answers(HealthTarget target) {
    String path = target.httpPath().startsWith("/") ? target.httpPath() : "/" + target.httpPath();
    String host = target.ip().indexOf(':') >= 0 ? "[" + target.ip() + "]" : target.ip();
    return http.get().uri("http://" + host + ":" + target.port() + path)
        .responseSingle((response, body) -> body.then(Mono.just(response.status().code())))
        .map(status -> status >= 200 && status < 400);
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
