package io.reactiveregistry.server.eureka;

import io.reactiveregistry.protocol.message.InstanceBody;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * An InstanceInfo as an Eureka client registers it, checked, and how it becomes one of this
 * registry's instances: its address is {@code ipAddr} and the port it has enabled, and what the
 * registry has no field for (the id the client chose, host name, VIP addresses, URLs, the status
 * the instance reports, the secure port) is kept in its metadata under {@code eureka.}, so that
 * every member shows it back the same. Its lease becomes its heartbeat timings: a renewal is
 * expected every {@code renewalIntervalInSecs}, and after {@code durationInSecs} without one the
 * instance is removed, as Eureka evicts it.
 */
record EurekaInstance(
    String id, String app, String hostName, String ipAddr, String status, int port, boolean portEnabled,
    int securePort, boolean securePortEnabled, Map<String, String> kept, int renewalIntervalSecs, int durationSecs,
    Map<String, String> metadata) {

  static final String PREFIX = "eureka.";
  static final String ID = PREFIX + "instanceId";
  static final String HOST_NAME = PREFIX + "hostName";
  static final String STATUS = PREFIX + "status";
  /** The status an override set ({@code PUT .../status}); an override's metadata, never the instance's own. */
  static final String OVERRIDDEN_STATUS = PREFIX + "overriddenStatus";
  static final String PORT = PREFIX + "port";
  static final String PORT_ENABLED = PREFIX + "portEnabled";
  static final String SECURE_PORT = PREFIX + "securePort";
  static final String SECURE_PORT_ENABLED = PREFIX + "securePortEnabled";
  static final String DATA_CENTER = PREFIX + "dataCenter";
  /** InstanceInfo's fields kept as they are, under {@code eureka.<field>}. */
  static final List<String> KEPT_FIELDS = List.of("vipAddress", "secureVipAddress", "homePageUrl", "statusPageUrl",
      "healthCheckUrl", "secureHealthCheckUrl", "appGroupName", "asgName", "lastDirtyTimestamp");
  /** The kept fields' metadata keys, made once (not a new string for each instance). */
  private static final Map<String, String> KEPT_KEYS = keptKeys();
  /**
   * Kept fields whose values a fleet's instances share: an application's VIP addresses, its group,
   * the data centre. They are kept once, as are the status, the ports and the timings: a registry
   * holds each instance's metadata for as long as it lives, and the same few strings held once per
   * instance were a fifth of what an Eureka instance costs the heap.
   */
  private static final Set<String> SHARED_FIELDS = Set.of("vipAddress", "secureVipAddress", "appGroupName",
      "asgName", "dataCenter");
  /**
   * Those values, each kept once. A map that reads without a lock and inserts with a compare-and-set
   * (or a bin's monitor), not Guava's interner: its segment locks parked event loops registering at
   * once (BlockHound caught it). Bounded: past it a value is used as it came.
   */
  private static final Map<String, String> SHARED_VALUES = new ConcurrentHashMap<>();
  private static final int MAX_SHARED_VALUES = 10_000;

  /** Heartbeat timings the registry reads from metadata (HeartbeatTimings' keys). */
  static final Set<String> TIMING_KEYS = Set.of("preserved.heart.beat.interval", "preserved.heart.beat.timeout",
      "preserved.ip.delete.timeout");
  static final Set<String> STATUSES = Set.of("UP", "DOWN", "STARTING", "OUT_OF_SERVICE", "UNKNOWN");
  static final Set<String> DATA_CENTERS = Set.of("MyOwn", "Amazon", "Netflix");

  /** Reads an {@code instance} document registered at {@code POST /apps/{app}}; refused naming the field and rule. */
  static EurekaInstance read(EurekaTree.Document document, String pathApp) {
    if (!document.root().equals("instance") || !(document.content() instanceof Map<?, ?> info)) {
      throw invalid("the body must be an InstanceInfo document, {\"instance\": {...}} or <instance>...</instance>, "
          + "not '" + document.root() + "'");
    }
    String app = required(info, "app");
    if (!app.equalsIgnoreCase(pathApp)) {
      throw invalid("instance.app '" + app + "' does not match the application in the path, '" + pathApp + "'");
    }
    String hostName = required(info, "hostName");
    String ipAddr = required(info, "ipAddr");
    String instanceId = text(info, "instanceId");
    String id = instanceId == null || instanceId.isBlank() ? hostName : instanceId; // InstanceInfo.getId()'s rule
    String status = text(info, "status");
    status = status == null ? "UP" : status.toUpperCase(Locale.ROOT);
    if (!STATUSES.contains(status)) {
      throw invalid("instance.status must be one of UP, DOWN, STARTING, OUT_OF_SERVICE, UNKNOWN, not '" + status + "'");
    }
    Object dataCenterInfo = info.get("dataCenterInfo");
    String dataCenter = dataCenterInfo instanceof Map<?, ?> dc ? text(dc, "name") : null;
    if (dataCenter == null || !DATA_CENTERS.contains(dataCenter)) {
      throw invalid("instance.dataCenterInfo.name is required: MyOwn, Amazon or Netflix");
    }
    Port port = port(info, "port", 8080, true);
    Port secure = port(info, "securePort", 443, false);
    if (!port.enabled() && !secure.enabled()) {
      throw invalid("instance.port or instance.securePort must be enabled");
    }
    Object lease = info.get("leaseInfo");
    Map<?, ?> leaseInfo = lease instanceof Map<?, ?> l ? l : Map.of();
    int renewal = whole(leaseInfo, "renewalIntervalInSecs", 30, 1, 86_400);
    int duration = whole(leaseInfo, "durationInSecs", 90, 1, 86_400);
    if (duration < renewal) {
      throw invalid("instance.leaseInfo.durationInSecs (" + duration + ") must not be below renewalIntervalInSecs ("
          + renewal + "): the lease would end before the next renewal");
    }
    Map<String, String> kept = new LinkedHashMap<>();
    for (String field : KEPT_FIELDS) {
      String value = text(info, field);
      if (value != null && !value.isEmpty()) {
        kept.put(field, value);
      }
    }
    kept.put("dataCenter", dataCenter);
    return new EurekaInstance(id, app.toUpperCase(Locale.ROOT), hostName, ipAddr, status, port.number(),
        port.enabled(), secure.number(), secure.enabled(), kept, renewal, duration, metadata(info.get("metadata")));
  }

  /** The service this application is in the registry: its name in lower case, as Spring Cloud names services. */
  static String service(String app) {
    return app.toLowerCase(Locale.ROOT);
  }

  /** The instance as the registry registers it: enabled only when it reports UP. */
  InstanceBody toInstance() {
    Map<String, String> all = new LinkedHashMap<>(metadata);
    all.put(ID, id);
    all.put(HOST_NAME, hostName);
    all.put(STATUS, shared(status));
    boolean onSecurePort = !portEnabled;
    if (onSecurePort) { // the registry's port is the secure one; the other is kept to be shown back
      all.put(PORT, shared(Integer.toString(port)));
      all.put(PORT_ENABLED, "false");
    }
    all.put(SECURE_PORT, shared(Integer.toString(securePort)));
    all.put(SECURE_PORT_ENABLED, Boolean.toString(securePortEnabled));
    kept.forEach((field, value) -> all.put(KEPT_KEYS.get(field),
        SHARED_FIELDS.contains(field) ? shared(value) : value));
    all.put("preserved.heart.beat.interval", shared(Long.toString(renewalIntervalSecs * 1000L)));
    String duration = shared(Long.toString(durationSecs * 1000L));
    all.put("preserved.heart.beat.timeout", duration);
    all.put("preserved.ip.delete.timeout", duration);
    return new InstanceBody(null, ipAddr, onSecurePort ? securePort : port, null, null, status.equals("UP"), null,
        null, all);
  }

  /** {@code value}, or an equal string kept earlier: the one copy instances share. */
  private static String shared(String value) {
    String known = SHARED_VALUES.get(value);
    if (known != null) {
      return known;
    }
    if (SHARED_VALUES.size() >= MAX_SHARED_VALUES) {
      return value;
    }
    String raced = SHARED_VALUES.putIfAbsent(value, value);
    return raced == null ? value : raced;
  }

  private static Map<String, String> keptKeys() {
    Map<String, String> keys = new LinkedHashMap<>();
    KEPT_FIELDS.forEach(field -> keys.put(field, PREFIX + field));
    keys.put("dataCenter", DATA_CENTER);
    return Map.copyOf(keys);
  }

  private record Port(int number, boolean enabled) {}

  /** {@code "port": {"$": 8080, "@enabled": "true"}}, {@code <port enabled="true">8080</port>}, or a bare number. */
  private static Port port(Map<?, ?> info, String field, int defaultNumber, boolean defaultEnabled) {
    Object value = info.get(field);
    if (value == null) {
      return new Port(defaultNumber, defaultEnabled);
    }
    Object number = value instanceof Map<?, ?> wrapped ? wrapped.get("$") : value;
    Object enabled = value instanceof Map<?, ?> wrapped ? wrapped.get("@enabled") : null;
    int port = number == null ? defaultNumber : whole("instance." + field, number, 0, 65_535);
    boolean on = enabled == null ? defaultEnabled : Boolean.parseBoolean(String.valueOf(enabled));
    if (on && port == 0) {
      throw invalid("instance." + field + " must be 1-65535 when enabled");
    }
    return new Port(port, on);
  }

  private static Map<String, String> metadata(@Nullable Object value) {
    if (value == null || value instanceof String text && text.isEmpty()) {
      return Map.of();
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw invalid("instance.metadata must be an object of names to strings");
    }
    Map<String, String> metadata = new LinkedHashMap<>();
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      String key = String.valueOf(entry.getKey());
      if (key.equals("@class")) { // Eureka's marker of an empty map, not an entry
        continue;
      }
      if (key.startsWith(PREFIX) || TIMING_KEYS.contains(key)) {
        throw invalid("instance.metadata '" + key + "' is reserved: the door keeps the InstanceInfo's own fields "
            + "under 'eureka.' and its lease under 'preserved.'");
      }
      Object v = entry.getValue();
      if (v instanceof Map<?, ?> || v instanceof List<?>) {
        throw invalid("instance.metadata '" + key + "' must be a string");
      }
      metadata.put(key, v == null ? "" : String.valueOf(v));
    }
    return metadata;
  }

  private static String required(Map<?, ?> info, String field) {
    String value = text(info, field);
    if (value == null || value.isBlank()) {
      throw invalid("instance." + field + " is required");
    }
    return value.trim();
  }

  static @Nullable String text(Map<?, ?> map, String field) {
    Object value = map.get(field);
    if (value instanceof Map<?, ?> || value instanceof List<?>) {
      throw invalid("instance." + field + " must be a string");
    }
    return value == null ? null : String.valueOf(value);
  }

  private static int whole(Map<?, ?> map, String field, int defaultValue, int min, int max) {
    Object value = map.get(field);
    return value == null ? defaultValue : whole("instance.leaseInfo." + field, value, min, max);
  }

  private static int whole(String field, Object value, int min, int max) {
    String text = String.valueOf(value).trim();
    try {
      int number = Integer.parseInt(text);
      if (number >= min && number <= max) {
        return number;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw invalid(field + " must be a whole number " + min + "-" + max + ", not '" + text + "'");
  }

  private static EurekaRefusal invalid(String message) {
    return new EurekaRefusal(400, message);
  }
}
