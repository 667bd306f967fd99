package io.reactiveregistry.sample.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Cloud Gateway whose routes are the registry's services: {@code /<service>/**} goes to
 * {@code lb://<service>}, picked among its healthy instances. No route is configured and nothing
 * polls: the starter publishes Spring Cloud's HeartbeatEvent whenever the catalog changes, on which
 * the gateway's discovery locator rebuilds its routes, so a service that appears is routed, and
 * one that goes stops being routed, within milliseconds.
 */
@SpringBootApplication
public class GatewayMain {
  public static void main(String[] args) {
    SpringApplication.run(GatewayMain.class, args);
  }
}
