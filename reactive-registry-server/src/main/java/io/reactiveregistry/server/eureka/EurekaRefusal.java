package io.reactiveregistry.server.eureka;

/**
 * A request the Eureka door refuses itself, with the HTTP status Eureka's server gives it (400 for
 * a malformed InstanceInfo, 404 for an unknown application or instance, 405, 415) and a message that
 * names the field and the rule. Nothing has changed when it is thrown.
 */
class EurekaRefusal extends RuntimeException {
  private final int status;

  EurekaRefusal(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  int status() {
    return status;
  }
}
