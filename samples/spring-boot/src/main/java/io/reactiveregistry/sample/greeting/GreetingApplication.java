package io.reactiveregistry.sample.greeting;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;
import static org.springframework.web.reactive.function.server.RouterFunctions.route;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The called service: registers itself as {@code greeting} when its web server has started (the
 * starter does it; there is no registry code here) and answers {@code GET /greeting} with the port
 * it listens on, so a caller can see which instance it reached.
 */
@SpringBootApplication
public class GreetingApplication {

  public static void main(String[] args) {
    application().run(args);
  }

  /** The application, reading {@code greeting.properties}. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(GreetingApplication.class).properties("spring.config.name=greeting");
  }

  @Bean
  RouterFunction<ServerResponse> greeting() {
    return route(GET("/greeting"), request -> ServerResponse.ok().bodyValue(
        "hello from greeting on port " + request.exchange().getRequest().getLocalAddress().getPort()));
  }
}
