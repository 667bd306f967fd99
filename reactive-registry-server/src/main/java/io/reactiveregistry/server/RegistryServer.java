package io.reactiveregistry.server;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reactiveregistry.server.audit.ChangeCounter;
import io.reactiveregistry.server.audit.TraceHub;
import io.reactiveregistry.server.core.Registry;
import io.reactiveregistry.server.lifecycle.LifecycleTicker;
import io.reactiveregistry.server.push.PushHub;
import io.reactiveregistry.server.runtime.RegistryRuntime;
import io.reactiveregistry.server.transport.RSocketEndpoint;
import io.reactiveregistry.server.transport.ServerIdentity;
import io.rsocket.transport.netty.server.CloseableChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Properties;
import java.util.UUID;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A running registry server: the core, its runtime, the expiry ticker and the RSocket endpoint.
 * Start with {@link #start(ServerConfig)}; stop with {@link #dispose()}.
 */
public final class RegistryServer implements Disposable {
  private final RegistryRuntime runtime;
  private final RSocketEndpoint endpoint;
  private final CloseableChannel tcp;
  private final Disposable ticker;
  private final PrometheusMeterRegistry meters;

  private RegistryServer(RegistryRuntime runtime, RSocketEndpoint endpoint, CloseableChannel tcp, Disposable ticker,
      PrometheusMeterRegistry meters) {
    this.runtime = runtime;
    this.endpoint = endpoint;
    this.tcp = tcp;
    this.ticker = ticker;
    this.meters = meters;
  }

  /** The server's meters, in Prometheus text format by {@link PrometheusMeterRegistry#scrape()}. */
  public PrometheusMeterRegistry meters() {
    return meters;
  }

  /** Builds the server and binds its ports; the Mono completes once it accepts connections. */
  public static Mono<RegistryServer> start(ServerConfig config) {
    return Mono.defer(() -> {
      PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      InstantSource clock = InstantSource.system();
      Registry registry = new Registry(clock, config.registryConfig(), config.lifecycle(), new java.util.Random());
      RegistryRuntime runtime = new RegistryRuntime(registry, new PushHub(config.maxPendingEvents()));
      ServerIdentity identity = new ServerIdentity(version(), UUID.randomUUID().toString(), clock.millis());
      TraceHub trace = new TraceHub(clock, config.maxPendingEvents(), Schedulers.parallel());
      runtime.addListener(trace);
      runtime.addListener(new ChangeCounter(meters));
      RSocketEndpoint endpoint = new RSocketEndpoint(runtime, trace, identity, config.limits(), clock);
      return endpoint.bindTcp(config.host(), config.tcpPort()).map(tcp -> {
        Disposable ticker = new LifecycleTicker(runtime).start(config.expiryTick(), Schedulers.parallel());
        return new RegistryServer(runtime, endpoint, tcp, ticker, meters);
      });
    });
  }

  public InetSocketAddress tcpAddress() {
    return tcp.address();
  }

  public int tcpPort() {
    return tcp.address().getPort();
  }

  /** The runtime, for embedding and tests that look at state directly. */
  public RegistryRuntime runtime() {
    return runtime;
  }

  public int openConnections() {
    return endpoint.openConnections();
  }

  public long droppedHeartbeats() {
    return endpoint.droppedHeartbeats();
  }

  /** Stops accepting, closes every connection (releasing what each owned) and stops the ticker. */
  @Override
  public void dispose() {
    stop().subscribe();
  }

  /** The port closes first, so no connection can arrive after the others were closed. */
  private Mono<Void> stop() {
    return Mono.defer(() -> {
      ticker.dispose();
      tcp.dispose();
      return tcp.onClose().onErrorResume(e -> Mono.empty()).then(endpoint.closeConnections());
    });
  }

  @Override
  public boolean isDisposed() {
    return tcp.isDisposed();
  }

  /** Completes when the server has closed its ports. */
  public Mono<Void> onClose() {
    return tcp.onClose();
  }

  /** Disposes and waits, at most {@code timeout}, for the port and every connection to close. */
  public void disposeNow(Duration timeout) {
    stop().block(timeout);
  }

  static String version() {
    try (InputStream in = RegistryServer.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        return "dev";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "dev");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
