package io.reactiveregistry.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reactiveregistry.sample.frontend.FrontendApplication;
import io.reactiveregistry.sample.greeting.GreetingApplication;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The README's sample walk-through, in one JVM: a registry, two greeting instances and the
 * frontend (on free ports instead of 7070, 8081, 8082 and 8080); calls spread over both
 * instances and move to the survivor when one stops.
 */
class SampleTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void theFrontendReachesEveryGreetingInstanceThroughLbAndFollowsOneStopping() {
    RegistryServer registry = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(WAIT);
    String servers = "--reactive-registry.servers=tcp://127.0.0.1:" + registry.tcpPort();
    ConfigurableApplicationContext first = start(GreetingApplication.application(), servers);
    ConfigurableApplicationContext second = start(GreetingApplication.application(), servers);
    ConfigurableApplicationContext frontend = start(FrontendApplication.application(), servers);
    try {
      WebClient hello = WebClient.create("http://127.0.0.1:" + port(frontend));
      int firstPort = port(first);
      int secondPort = port(second);
      Set<String> answers = new HashSet<>();
      await().atMost(WAIT).until(() -> {
        answers.add(hello.get().uri("/hello").retrieve().bodyToMono(String.class).block(WAIT));
        return answers.size() == 2;
      });
      assertThat(answers).containsExactlyInAnyOrder(
          "frontend called: hello from greeting on port " + firstPort + "\n",
          "frontend called: hello from greeting on port " + secondPort + "\n");

      first.close();
      for (int i = 0; i < 20; i++) {
        assertThat(hello.get().uri("/hello").retrieve().bodyToMono(String.class).block(WAIT))
            .isEqualTo("frontend called: hello from greeting on port " + secondPort + "\n");
      }
    } finally {
      frontend.close();
      second.close();
      first.close();
      registry.disposeNow(WAIT);
    }
  }

  /**
   * Each application with Netty resources of its own: Spring Boot's are JVM-wide, and closing one
   * of several applications in one JVM would stop the others' event loops with its own.
   */
  private static ConfigurableApplicationContext start(SpringApplicationBuilder application, String servers) {
    return application.sources(OwnNettyResources.class).run("--server.port=0", servers);
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnNettyResources {
    @Bean
    ReactorResourceFactory reactorResourceFactory() {
      ReactorResourceFactory resources = new ReactorResourceFactory();
      resources.setUseGlobalResources(false);
      return resources;
    }
  }

  private static int port(ConfigurableApplicationContext context) {
    return ((WebServerApplicationContext) context).getWebServer().getPort();
  }
}
