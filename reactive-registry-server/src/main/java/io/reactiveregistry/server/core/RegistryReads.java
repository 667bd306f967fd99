package io.reactiveregistry.server.core;

import io.reactiveregistry.server.core.Results.InstanceCounts;
import io.reactiveregistry.server.core.Results.NamespaceSummary;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What may be read of the registry; nothing here changes it. The runtime hands this out under its
 * monitor ({@code RegistryRuntime.read}), so a read sees one consistent state.
 */
public interface RegistryReads {

  /** The view of a service through a filter, at the current revision; empty for an unknown service. */
  ServiceView view(ServiceKey key, ViewFilter filter);

  /** A service's definition, if it exists. */
  Optional<ServiceDefinition> service(ServiceKey key);

  /** Services of a namespace (and group, when given) whose name starts with {@code prefix}, by group then name. */
  List<ServiceSummary> list(String namespace, String group, String prefix);

  /**
   * The services of a namespace (and group, when given), by group then name, as {@link #list}
   * orders them but without their counts, which look at every instance.
   */
  List<ServiceKey> keys(String namespace, String group);

  /** A service's summary, as {@link #list} gives it; empty for an unknown service. */
  Optional<ServiceSummary> summary(ServiceKey key);

  boolean exists(ServiceKey key);

  /** A service's instances as an operator sees them, in registration order; empty for an unknown service. */
  List<Results.InstanceRecord> instanceRecords(ServiceKey key);

  /** Whether the service exists and holds persistent instances (whose changes are durable). */
  boolean persistent(ServiceKey key);

  /** Whether a healthy-only view of the service is now in protection mode. */
  boolean protectionTriggered(ServiceKey key, ViewFilter filter);

  /**
   * The revision of the last change to this service or its instances, or -1 for an unknown
   * service. Every view of the service is the same while it stays the same.
   */
  long serviceRevision(ServiceKey key);

  /** The revision of the last change. */
  long revision();

  /** Whether missed heartbeats are currently not expiring instances. */
  boolean selfPreserving();

  /** What self-preservation judges by: heartbeats expected and received per minute, and its threshold. */
  HeartbeatFigures heartbeatFigures();

  /** How many ephemeral instances a connection owns. */
  int ownedBy(Owner owner);

  /** Where the ephemeral instances a connection owns are. */
  List<InstanceAddress> ownedAddresses(Owner owner);

  /** Who owns the instance at {@code address}: a connection here, another node; null when nobody does. */
  @Nullable Owner ownerOf(InstanceAddress address);

  /** Every persistent instance, for one round of health checks. */
  List<HealthTarget> healthTargets();

  /** Instances by type and health; looks at every instance, so for occasional reads (a metrics scrape). */
  InstanceCounts instanceCounts();

  int serviceCount();

  int namespaceCount();

  /** Every namespace holding a service, by name, with its counts; looks at every service. */
  List<NamespaceSummary> namespaces();

  /** UTF-8 bytes of metadata kept durably, counted against {@link Quotas#maxDurableMetadataBytes()}. */
  long durableMetadataBytes();


  /** This node's claims: the ephemeral instances its own connections own, as its peers copy them. */
  List<ReplicaChange.Claimed> claims();

  /** The digest of {@link #claims()}, without building them. */
  ReplicaDigest claimsDigest();

  /** The digest of the copies this node holds of a peer's claims. */
  ReplicaDigest replicaDigest(String node);

  /** How many copies of a peer's claims this node holds. */
  int replicaCopies(String node);
}
