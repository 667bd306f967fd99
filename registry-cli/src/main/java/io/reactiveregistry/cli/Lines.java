package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceEvent;
import io.reactiveregistry.protocol.message.ServiceSummary;
import io.reactiveregistry.protocol.message.TraceEvent;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The readable one-line forms of what the registry answers. */
final class Lines {
  private Lines() {}

  /** {@code 127.0.0.5:8080 cluster=DEFAULT weight=1.0 healthy enabled zone=a}. */
  static String instance(InstanceBody instance) {
    StringBuilder line = new StringBuilder(address(instance.ip(), instance.port()))
        .append(" cluster=").append(instance.cluster())
        .append(" weight=").append(instance.weight())
        .append(Boolean.FALSE.equals(instance.healthy()) ? " unhealthy" : " healthy")
        .append(Boolean.FALSE.equals(instance.enabled()) ? " disabled" : " enabled");
    if (Boolean.FALSE.equals(instance.ephemeral())) {
      line.append(" persistent");
    }
    metadata(instance.metadata()).forEach(entry -> line.append(' ').append(entry));
    return line.toString();
  }

  static String address(String ip, int port) {
    return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + port : ip + ":" + port;
  }

  static List<String> metadata(Map<String, String> metadata) {
    return metadata == null ? List.of() : metadata.entrySet().stream().sorted(Map.Entry.comparingByKey())
        .map(entry -> entry.getKey() + "=" + entry.getValue()).toList();
  }

  /**
   * One line per event: {@code #12 SNAPSHOT public/DEFAULT_GROUP/orders: 2 instances (...)},
   * {@code #13 UPSERT 127.0.0.5:8082 ...}, {@code #14 REMOVE 127.0.0.5#8082#DEFAULT}.
   */
  static String event(ServiceEvent event) {
    String head = "#" + event.revision() + " " + event.type();
    return switch (event.type()) {
      case ServiceEvent.SNAPSHOT -> head + " " + event.namespace() + "/" + event.group() + "/" + event.service() + ": "
          + count(event.instances()) + (Boolean.TRUE.equals(event.protectionTriggered()) ? ", protection triggered" : "")
          + instances(event.instances());
      case ServiceEvent.UPSERT -> head + " " + instance(event.instance());
      case ServiceEvent.REMOVE -> head + " " + event.instanceId();
      case ServiceEvent.BATCH -> head + " " + event.events().stream().map(Lines::event)
          .collect(Collectors.joining(" | ", "[", "]"));
      default -> head;
    };
  }

  /**
   * One line per catalog event: {@code #12 SNAPSHOT public: 2 services (DEFAULT_GROUP/orders
   * ephemeral 2/3 healthy; ...)}, {@code #13 UPSERT DEFAULT_GROUP/orders ephemeral 3/3 healthy},
   * {@code #14 REMOVE DEFAULT_GROUP/orders}.
   */
  static String catalog(CatalogEvent event) {
    String head = "#" + event.revision() + " " + event.type();
    return switch (event.type()) {
      case CatalogEvent.SNAPSHOT -> {
        int n = event.services() == null ? 0 : event.services().size();
        yield head + " " + event.namespace() + ": " + n + (n == 1 ? " service" : " services")
            + (n == 0 ? "" : event.services().stream().map(Lines::summary).collect(Collectors.joining("; ", " (", ")")));
      }
      case CatalogEvent.UPSERT -> head + " " + summary(event.service());
      case CatalogEvent.REMOVE -> head + " " + event.group() + "/" + event.name();
      default -> head;
    };
  }

  /** {@code DEFAULT_GROUP/orders ephemeral 2/3 healthy, protection triggered}. */
  private static String summary(ServiceSummary service) {
    return service.group() + "/" + service.service() + " " + (service.ephemeral() ? "ephemeral" : "persistent") + " "
        + service.healthyCount() + "/" + service.instanceCount() + " healthy"
        + (service.protectionTriggered() ? ", protection triggered" : "");
  }

  private static String count(List<InstanceBody> instances) {
    int n = instances == null ? 0 : instances.size();
    return n + (n == 1 ? " instance" : " instances");
  }

  private static String instances(List<InstanceBody> instances) {
    return instances == null || instances.isEmpty() ? ""
        : instances.stream().map(Lines::instance).collect(Collectors.joining("; ", " (", ")"));
  }

  /** {@code 2026-12-02T13:41:42Z #15 DEREGISTERED public/DEFAULT_GROUP/orders 127.0.0.5#8080#DEFAULT by ...}. */
  static String trace(TraceEvent event) {
    if (event.missed() != null) {
      return "... " + event.missed() + " trace events missed (this reader was too slow)";
    }
    StringBuilder line = new StringBuilder();
    line.append(event.time() == null ? "-" : Instant.ofEpochMilli(event.time()).toString());
    if (event.revision() != null) {
      line.append(" #").append(event.revision());
    }
    line.append(' ').append(event.cause());
    if (event.service() != null) {
      line.append(' ').append(event.namespace()).append('/').append(event.group()).append('/').append(event.service());
    }
    if (event.instanceId() != null) {
      line.append(' ').append(event.instanceId());
    }
    if (event.connection() != null) {
      line.append(" connection=").append(event.connection());
    }
    if (event.principal() != null) {
      line.append(" principal=").append(event.principal());
    }
    if (event.node() != null) {
      line.append(" node=").append(event.node());
    }
    if (event.traceId() != null) {
      line.append(" trace=").append(event.traceId());
    }
    if (event.changes() != null) {
      for (TraceEvent.FieldChange change : event.changes()) {
        line.append(' ').append(change.field()).append(": ").append(change.from() == null ? "-" : change.from())
            .append(" -> ").append(change.to() == null ? "-" : change.to());
      }
    }
    return line.toString();
  }
}
