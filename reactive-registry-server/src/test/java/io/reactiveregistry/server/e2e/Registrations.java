package io.reactiveregistry.server.e2e;

/** {@code instance.register} bodies, as the tests write them. */
public final class Registrations {
  private Registrations() {}

  /** An ephemeral instance of {@code service} in the default namespace and group. */
  public static String registration(String service, String ip, int port) {
    return "{\"service\":\"" + service + "\",\"instance\":{\"ip\":\"" + ip + "\",\"port\":" + port + "}}";
  }

  /** The same, with more of the instance's fields ({@code "metadata":{...}}, say) as JSON. */
  public static String registration(String service, String ip, int port, String extraInstanceFields) {
    return "{\"service\":\"" + service + "\",\"instance\":{\"ip\":\"" + ip + "\",\"port\":" + port + ","
        + extraInstanceFields + "}}";
  }
}
