package io.reactiveregistry.interop.eureka;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application with Spring Cloud Netflix's Eureka client, configured as an Eureka
 * user configures it: the one thing pointing it at this registry is
 * {@code eureka.client.service-url.defaultZone}. The rest shortens Eureka's timings for a test.
 */
@SpringBootApplication
public class EurekaApp {

  /** Runs the application in its own JVM, for the test that kills it with SIGKILL. */
  public static void main(String[] args) {
    SpringApplication.run(EurekaApp.class, args);
  }

  static ConfigurableApplicationContext start(String defaultZone, String name, String instanceId, String... extra) {
    return SpringApplication.run(EurekaApp.class, arguments(defaultZone, name, instanceId, extra));
  }

  static String[] arguments(String defaultZone, String name, String instanceId, String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "--eureka.client.service-url.defaultZone=" + defaultZone,
        "--server.port=0",
        "--spring.application.name=" + name,
        "--spring.main.banner-mode=off",
        "--logging.level.root=WARN",
        "--eureka.instance.instance-id=" + instanceId,
        "--eureka.instance.prefer-ip-address=true",
        "--eureka.instance.ip-address=127.0.0.1",
        "--eureka.instance.hostname=127.0.0.1",
        "--eureka.instance.lease-renewal-interval-in-seconds=1",
        "--eureka.instance.lease-expiration-duration-in-seconds=3",
        "--eureka.client.registry-fetch-interval-seconds=1",
        "--eureka.client.instance-info-replication-interval-seconds=1",
        "--eureka.client.initial-instance-info-replication-interval-seconds=1",
        "--management.endpoints.web.exposure.include=health,serviceregistry"));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }
}
