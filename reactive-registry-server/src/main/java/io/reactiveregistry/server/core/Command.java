package io.reactiveregistry.server.core;

import java.util.List;
import java.util.Map;

/**
 * Every change the registry accepts, as a value: an edge builds one from a request (a connection's
 * own requests carry it as their {@link Owner}), the server's lifecycle builds the rest, and only the
 * runtime applies them ({@link Registry#apply}). Each has one {@link Outcome}, or is {@link
 * Outcome.Refused} having changed nothing. Records, so that a command prints as what it asks, compares
 * equal in tests, and can be shipped to another node as it is.
 */
public sealed interface Command {

  /** A command about one service: the edges check the caller's permission on its namespace. */
  sealed interface OfService extends Command {
    ServiceKey service();
  }

  /** Registers an instance, or updates it; a registration from another connection takes an ephemeral one over. */
  record Register(Owner owner, ServiceKey service, boolean ephemeral, InstanceSpec instance) implements OfService {}

  /** Makes the connection's instances of an ephemeral service exactly these. */
  record BatchRegister(Owner owner, ServiceKey service, List<InstanceSpec> instances) implements OfService {
    public BatchRegister {
      instances = List.copyOf(instances);
    }
  }

  /** Removes an instance; only its owner may remove an ephemeral one. */
  record Deregister(Owner owner, ServiceKey service, String instanceId) implements OfService {}

  /** A heartbeat naming one instance: refreshes it, or re-creates it when the server no longer has it. */
  record Heartbeat(Owner owner, ServiceKey service, InstanceSpec instance) implements OfService {}

  /**
   * A renewal naming one instance by its id (Eureka's {@code PUT /apps/{app}/{id}}): refreshes it,
   * and unlike a {@link Heartbeat} never re-creates it: a renewal carries no instance to re-create,
   * so one the server does not have is {@code IGNORED_UNKNOWN} and its client registers again.
   */
  record Renew(Owner owner, ServiceKey service, String instanceId) implements OfService {}

  /** A heartbeat with an empty body: refreshes every instance the connection owns. */
  record HeartbeatAll(Owner owner) implements Command {}

  /** The connection closed: every ephemeral instance it owns goes. */
  record Release(Owner owner) implements Command {}

  /** An operator defines a service; it stays, even empty, until deleted. */
  record CreateService(Owner actor, ServiceKey service, boolean ephemeral, double protectThreshold,
      Map<String, String> metadata) implements OfService {}

  /** Changes the settings given (a null one is left alone); the type never changes. */
  record UpdateService(Owner actor, ServiceKey service, Boolean ephemeral, Double protectThreshold,
      Map<String, String> metadata) implements OfService {}

  /** Deletes an empty service. */
  record DeleteService(Owner actor, ServiceKey service) implements OfService {}

  /** Replaces an instance's operator override; fields left out stop being overridden. */
  record OverrideInstance(Owner actor, ServiceKey service, String instanceId, InstanceOverride value)
      implements OfService {}

  /**
   * Changes only the given fields of an instance's override; in {@code metadata} a key mapped to null
   * stops being overridden.
   */
  record PatchInstance(Owner actor, ServiceKey service, String instanceId, Boolean enabled, Double weight,
      Map<String, String> metadata) implements OfService {}

  /**
   * The instance's override stops overriding {@code enabled} and the metadata keys named (Eureka's
   * {@code DELETE .../status}); its weight and other metadata overrides stay.
   */
  record RestoreEnabled(Owner actor, ServiceKey service, String instanceId, List<String> metadataKeys)
      implements OfService {
    public RestoreEnabled {
      metadataKeys = List.copyOf(metadataKeys);
    }
  }

  /** A health check's result for a persistent instance: its verdict, and how it came about. */
  record RecordHealth(ServiceKey service, String instanceId, HealthCheck check) implements OfService {}

  /** Applies heartbeat deadlines that have passed (at most the expiry budget of them). */
  record Expire() implements Command {}

  /**
   * Removes services empty past the cleanup time and overrides whose instance is long gone. Without
   * {@code durable}, only what this node alone holds (services of ephemeral instances nobody
   * defined): in a cluster only the leader removes durable values, once, for every member.
   */
  record CleanUp(boolean durable) implements Command {
    /** Everything due: what this node alone holds and what is durable. */
    public CleanUp() {
      this(true);
    }
  }

  /** The server itself did not run for this long: that time does not count against heartbeats. */
  record Stalled(long millis) implements Command {}

  /**
   * Durable changes another member of the cluster decided and the group committed, in log order:
   * applied whatever the quotas say (the log is the truth), recorded as events and never written
   * again. With {@code replacing}, they are the whole durable state (a snapshot this node
   * installed): what this node holds beyond them goes.
   */
  record ApplyCommitted(List<DurableChange> changes, boolean replacing) implements Command {
    public ApplyCommitted {
      changes = List.copyOf(changes);
    }
  }

  /**
   * Another node's changes to its claims (the ephemeral instances its connections own), in the
   * order it made them: kept as that node's copies, and shown where they are the newest claim of
   * their instance. With {@code replacing}, they are the node's whole set of claims (the snapshot
   * that starts its stream): copies of it not among them go — at once, or, when the stream
   * started again within the grace after its loss ({@code keptUntilMillis}, by this node's clock,
   * later than now), when the grace ends, unless another node claims them meanwhile: a restarted
   * member's new run owns none of its last run's instances, whose clients are on their way to other
   * members, and they must not leave any view before the grace promised them is over.
   */
  record ApplyReplica(String node, List<ReplicaChange> changes, boolean replacing, long keptUntilMillis)
      implements Command {
    public ApplyReplica {
      changes = List.copyOf(changes);
    }

    public ApplyReplica(String node, List<ReplicaChange> changes, boolean replacing) {
      this(node, changes, replacing, 0);
    }
  }

  /** Another node was lost for longer than the grace period: its copies go, unless another node took them over. */
  record DropReplica(String node) implements Command {}

  /**
   * A command made on behalf of an authenticated principal (its request's token, else its
   * connection's): applied as the command itself, with the principal's name on every change it
   * makes, for the audit trail.
   */
  record ActingFor(String principal, Command command) implements Command {}

  /**
   * A command made in a trace (its request's span was recorded): applied as the command itself,
   * {@code trace} being the request's span, the parent of every change it makes, so that the audit trail and history lead to the
   * trace.
   */
  record Traced(TraceContext trace, Command command) implements Command {}
}
