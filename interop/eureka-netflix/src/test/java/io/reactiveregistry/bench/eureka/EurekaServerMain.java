package io.reactiveregistry.bench.eureka;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.netflix.eureka.server.EnableEurekaServer;

/**
 * A plain Spring Cloud Netflix Eureka server, for {@link EurekaSideBySide}: what a fleet runs
 * today, with its defaults (response cache included) but for not registering with itself.
 */
@SpringBootApplication
@EnableEurekaServer
public class EurekaServerMain {
  public static void main(String[] args) {
    SpringApplication.run(EurekaServerMain.class, args);
  }
}
