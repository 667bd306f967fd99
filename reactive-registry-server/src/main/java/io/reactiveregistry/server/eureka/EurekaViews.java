package io.reactiveregistry.server.eureka;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceStatus;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.request.Catalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The registry's instances as Eureka's clients read them. Any instance is shown, whichever door
 * registered it: its application is its service's name in upper case, its id the one its Eureka
 * client chose (else the registry's {@code ip#port#cluster}), its host name {@code ipAddr} when it
 * has none. Its status is decided so that an Eureka client and an RSocket subscriber agree on who
 * takes traffic: {@code UP} exactly when the registry's view says healthy, enabled and of weight
 * above 0 (what {@code healthyOnly} keeps); see {@link #status}.
 */
final class EurekaViews {
  private static final String DEFAULT_DATA_CENTER = "com.netflix.appinfo.InstanceInfo$DefaultDataCenterInfo";
  private static final String AMAZON_DATA_CENTER = "com.netflix.appinfo.AmazonInfo";
  private static final Map<String, Object> EMPTY_METADATA = Map.of("@class", "java.util.Collections$EmptyMap");

  private EurekaViews() {}

  /** The application an Eureka client knows a service by. */
  static String app(String service) {
    return service.toUpperCase(Locale.ROOT);
  }

  /** The instance's id as its Eureka client knows it. */
  static String id(InstanceBody instance) {
    String chosen = instance.metadata() == null ? null : instance.metadata().get(EurekaInstance.ID);
    return chosen != null ? chosen : instance.instanceId();
  }

  /**
   * Its Eureka status: an override's ({@code PUT .../status}) unless that is {@code UP} on an
   * unhealthy instance; {@code DOWN} when unhealthy (missed renewals, a failed health check);
   * {@code UP} when it takes traffic; otherwise the status it reports when not {@code UP}
   * ({@code STARTING}, say), else {@code OUT_OF_SERVICE} (disabled by an operator, or weight 0).
   */
  static String status(InstanceBody instance) {
    Map<String, String> metadata = metadata(instance);
    String overridden = metadata.get(EurekaInstance.OVERRIDDEN_STATUS);
    if (overridden != null && !overridden.equals("UP")) {
      return overridden;
    }
    if (!Boolean.TRUE.equals(instance.healthy())) {
      return "DOWN";
    }
    boolean enabled = !Boolean.FALSE.equals(instance.enabled());
    if (enabled && (instance.weight() == null || instance.weight() > 0)) {
      return "UP";
    }
    // The status its owner reports: an Eureka client's, or an RSocket client's (InstanceStatus).
    String own = metadata.getOrDefault(EurekaInstance.STATUS, metadata.get(InstanceStatus.METADATA_KEY));
    return own != null && !own.equals("UP") ? own : "OUT_OF_SERVICE";
  }

  /** An {@code instance} element's content. */
  static Map<String, Object> instance(String service, InstanceBody instance, Catalog.@Nullable ChangeKind action) {
    Map<String, String> metadata = metadata(instance);
    boolean eureka = metadata.containsKey(EurekaInstance.ID);
    String ip = instance.ip();
    int port = instance.port() == null ? 0 : instance.port();
    boolean portEnabled = !"false".equals(metadata.get(EurekaInstance.PORT_ENABLED));
    int unsecurePort = portEnabled ? port : parse(metadata.get(EurekaInstance.PORT), port);
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("instanceId", id(instance));
    info.put("hostName", metadata.getOrDefault(EurekaInstance.HOST_NAME, ip));
    info.put("app", app(service));
    info.put("ipAddr", ip);
    info.put("status", status(instance));
    info.put("overriddenStatus", metadata.getOrDefault(EurekaInstance.OVERRIDDEN_STATUS, "UNKNOWN"));
    info.put("port", ordered("$", unsecurePort, "@enabled", Boolean.toString(portEnabled)));
    info.put("securePort", ordered("$", parse(metadata.get(EurekaInstance.SECURE_PORT), 443),
        "@enabled", metadata.getOrDefault(EurekaInstance.SECURE_PORT_ENABLED, "false")));
    info.put("countryId", 1);
    String dataCenter = metadata.getOrDefault(EurekaInstance.DATA_CENTER, "MyOwn");
    info.put("dataCenterInfo", dataCenter.equals("Amazon")
        ? ordered("@class", AMAZON_DATA_CENTER, "name", dataCenter, "metadata", Map.of())
        : ordered("@class", DEFAULT_DATA_CENTER, "name", dataCenter));
    Map<String, Object> lease = new LinkedHashMap<>();
    lease.put("renewalIntervalInSecs", seconds(metadata.get("preserved.heart.beat.interval"), 5));
    lease.put("durationInSecs", seconds(metadata.get("preserved.ip.delete.timeout"), 30));
    lease.put("registrationTimestamp", 0);
    lease.put("lastRenewalTimestamp", 0);
    lease.put("evictionTimestamp", 0);
    lease.put("serviceUpTimestamp", 0);
    info.put("leaseInfo", lease);
    Map<String, Object> own = new LinkedHashMap<>();
    metadata.forEach((key, value) -> {
      if (!eureka || !(key.startsWith(EurekaInstance.PREFIX) || EurekaInstance.TIMING_KEYS.contains(key))) {
        own.put(key, value);
      }
    });
    info.put("metadata", own.isEmpty() ? EMPTY_METADATA : own);
    for (String field : EurekaInstance.KEPT_FIELDS) {
      String value = metadata.get(EurekaInstance.PREFIX + field);
      if (value != null && !field.equals("lastDirtyTimestamp")) {
        info.put(field, value);
      }
    }
    if (!eureka) { // Spring Cloud's clients look services up by VIP address: the service's name
      info.put("vipAddress", service);
      info.put("secureVipAddress", service);
    }
    info.put("isCoordinatingDiscoveryServer", "false");
    String dirty = metadata.getOrDefault(EurekaInstance.PREFIX + "lastDirtyTimestamp", "0");
    info.put("lastUpdatedTimestamp", dirty);
    info.put("lastDirtyTimestamp", dirty);
    if (action != null) {
      info.put("actionType", action.name());
    }
    return info;
  }

  /** An {@code application} element's content: the instances of every service it names (see {@link #app}). */
  static Map<String, Object> application(String app, List<ServiceSnapshot> services) {
    List<Object> instances = new ArrayList<>();
    for (ServiceSnapshot service : services) {
      for (InstanceBody instance : service.instances()) {
        instances.add(instance(service.service(), instance, null));
      }
    }
    Map<String, Object> application = new LinkedHashMap<>();
    application.put("name", app);
    application.put("instance", instances);
    return application;
  }

  /**
   * An {@code applications} element: the catalog's services grouped by application, with the
   * catalog's revision as {@code versions__delta} and its hash. (The full fetch and the delta are
   * put together from renderings kept per service: {@link Renderings}.)
   */
  static Map<String, Object> applications(Catalog catalog) {
    Map<String, List<Object>> byApp = new TreeMap<>();
    for (ServiceSnapshot service : catalog.services()) {
      for (InstanceBody instance : service.instances()) {
        byApp.computeIfAbsent(app(service.service()), name -> new ArrayList<>())
            .add(instance(service.service(), instance, null));
      }
    }
    List<Object> applications = new ArrayList<>(byApp.size());
    byApp.forEach((name, instances) -> {
      Map<String, Object> application = new LinkedHashMap<>();
      application.put("name", name);
      application.put("instance", instances);
      applications.add(application);
    });
    return envelope(catalog.revision(), hash(catalog), applications);
  }

  /**
   * The hash an Eureka client checks its copy against after applying a delta: how many instances
   * of each status, by status name, as {@code DOWN_1_UP_3_} (Eureka's reconcile hash code). A copy
   * that does not match is fetched whole.
   */
  static String hash(Catalog catalog) {
    Map<String, Integer> counts = new TreeMap<>();
    for (ServiceSnapshot service : catalog.services()) {
      for (InstanceBody instance : service.instances()) {
        counts.merge(status(instance), 1, Integer::sum);
      }
    }
    StringBuilder hash = new StringBuilder();
    counts.forEach((status, count) -> hash.append(status).append('_').append(count).append('_'));
    return hash.toString();
  }

  private static Map<String, Object> envelope(long revision, String hash, List<Object> applications) {
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("versions__delta", Long.toString(revision));
    envelope.put("apps__hashcode", hash);
    envelope.put("application", applications);
    return envelope;
  }

  /** A map written in the order given: Eureka's readers expect {@code @class} first. */
  private static Map<String, Object> ordered(Object... keysAndValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  private static Map<String, String> metadata(InstanceBody instance) {
    return instance.metadata() == null ? Map.of() : instance.metadata();
  }

  private static int parse(@Nullable String value, int otherwise) {
    try {
      return value == null ? otherwise : Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  private static long seconds(@Nullable String millis, long otherwise) {
    try {
      return millis == null ? otherwise : Math.max(1, Long.parseLong(millis) / 1000);
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }
}
