package io.reactiveregistry.sample;

import io.reactiveregistry.sample.frontend.FrontendApplication;
import io.reactiveregistry.sample.greeting.GreetingApplication;
import java.util.Arrays;

/**
 * One jar, two applications: {@code java -jar spring-boot-sample.jar greeting|frontend
 * [--server.port=N ...]}.
 */
public final class SampleMain {
  private SampleMain() {}

  public static void main(String[] args) {
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    switch (args.length == 0 ? "" : args[0]) {
      case "greeting" -> GreetingApplication.application().run(rest);
      case "frontend" -> FrontendApplication.application().run(rest);
      default -> {
        System.err.println("usage: java -jar spring-boot-sample.jar greeting|frontend [--server.port=N] [...]");
        System.exit(2);
      }
    }
  }
}
