package io.reactiveregistry.sample.frontend;

import static org.springframework.web.reactive.function.server.RequestPredicates.GET;
import static org.springframework.web.reactive.function.server.RouterFunctions.route;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The caller: {@code GET /hello} calls {@code lb://greeting} through a load-balanced
 * {@code WebClient}. Which instances it may reach comes from the registry's pushes, so starting,
 * stopping or disabling a greeting instance changes where the next call goes within milliseconds.
 */
@SpringBootApplication
public class FrontendApplication {

  public static void main(String[] args) {
    application().run(args);
  }

  /** The application, reading {@code frontend.properties}. */
  public static SpringApplicationBuilder application() {
    return new SpringApplicationBuilder(FrontendApplication.class).properties("spring.config.name=frontend");
  }

  @Bean
  @LoadBalanced
  WebClient.Builder loadBalanced() {
    return WebClient.builder();
  }

  @Bean
  RouterFunction<ServerResponse> hello(WebClient.Builder loadBalanced) {
    WebClient greeting = loadBalanced.baseUrl("http://greeting").build();
    return route(GET("/hello"), request -> greeting.get().uri("/greeting").retrieve().bodyToMono(String.class)
        .flatMap(answer -> ServerResponse.ok().bodyValue("frontend called: " + answer + "\n")));
  }
}
