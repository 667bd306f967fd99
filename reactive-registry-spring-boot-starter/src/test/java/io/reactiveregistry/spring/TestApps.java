package io.reactiveregistry.spring;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;
import static org.springframework.web.reactive.function.server.RouterFunctions.route;

import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.core.HeartbeatTimings;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/** Real registry servers and real Spring Boot WebFlux applications on loopback, for the starter's tests. */
final class TestApps {
  static final Duration WAIT = Duration.ofSeconds(10);

  private TestApps() {}

  /** Heartbeats every 200 ms, so that a test may give an instance a one-second heartbeat timeout. */
  static RegistryServer server(int port) {
    ServerConfig config = ServerConfig.ephemeralLoopback().withTcpPort(port)
        .withHeartbeat(new HeartbeatTimings(200, 2_000, 4_000));
    return RegistryServer.start(config).block(WAIT);
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A WebFlux application using the starter, on a free port, with {@code extra} properties ({@code key=value}). */
  static ConfigurableApplicationContext start(Class<?> app, String name, int registryPort, String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "--server.port=0",
        "--spring.application.name=" + name,
        "--spring.main.banner-mode=off",
        "--logging.level.root=WARN",
        "--reactive-registry.registration.ip=127.0.0.1",
        "--reactive-registry.reconnect-max-backoff=500ms",
        "--management.endpoint.health.show-details=always"));
    if (Arrays.stream(extra).noneMatch(property -> property.startsWith("reactive-registry.servers="))) {
      args.add("--reactive-registry.servers=tcp://127.0.0.1:" + registryPort);
    }
    for (String property : extra) {
      args.add("--" + property);
    }
    return new SpringApplicationBuilder(app, OwnNettyResources.class).run(args.toArray(String[]::new));
  }

  /**
   * Netty resources of each application's own: Spring Boot's are JVM-wide, and closing one of
   * several applications in one JVM would stop the others' event loops with its own.
   */
  @Configuration(proxyBeanMethods = false)
  static class OwnNettyResources {
    @Bean
    ReactorResourceFactory reactorResourceFactory() {
      ReactorResourceFactory resources = new ReactorResourceFactory();
      resources.setUseGlobalResources(false);
      // Reactor Netty waits 2 s by default for tasks submitted during its loops' shutdown; an
      // application closed by a test has none, and the wait made each close take 2 s.
      resources.setShutdownQuietPeriod(Duration.ZERO);
      return resources;
    }
  }

  static int port(ConfigurableApplicationContext context) {
    return ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  /** A service that answers {@code GET /whoami} with the port it listens on. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Whoami {
    @Bean
    RouterFunction<ServerResponse> whoami() {
      return route(GET("/whoami"), request -> ServerResponse.ok()
          .bodyValue(String.valueOf(request.exchange().getRequest().getLocalAddress().getPort())));
    }
  }

  /** A caller with a load-balanced {@code WebClient.Builder}. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Caller {
    @Bean
    @LoadBalanced
    WebClient.Builder loadBalanced() {
      return WebClient.builder();
    }
  }
}
