package io.reactiveregistry.server.core;

import java.util.List;

/**
 * What a {@link Command} did. Each command has its own outcome, or {@link Refused}: a refusal is a
 * value, never an exception crossing into the runtime or the edges, and a refused command changed
 * nothing.
 */
public sealed interface Outcome {

  /** {@link Command.Register}: the instance's id, the revision of the change, the timings it heartbeats by. */
  record Registered(String instanceId, long revision, HeartbeatTimings timings) implements Outcome {}

  /** {@link Command.BatchRegister}: the connection's instances of the service now, and the last revision used. */
  /** @param heartbeatIntervalMs the shortest heartbeat interval among the batch's instances */
  record BatchRegistered(List<String> instanceIds, long revision, long heartbeatIntervalMs) implements Outcome {}

  /** {@link Command.Deregister}: whether anything was removed. */
  record Deregistered(boolean removed, long revision) implements Outcome {}

  /** {@link Command.Heartbeat}: what it did; a heartbeat has no answer on the wire, but it is counted. */
  enum HeartbeatOutcome implements Outcome {
    REFRESHED,
    RECREATED,
    IGNORED_PERSISTENT,
    IGNORED_NOT_OWNER,
    /**
     * The instance is another member's copy: its owner's connection is there. A caller whose
     * heartbeats reach this member instead (an HTTP client behind a balancer, a client that failed
     * over) registers it again here, which takes it over.
     */
    IGNORED_OTHER_NODE,
    IGNORED_DEREGISTERED,
    /** A {@link Command.Renew} for an instance the server does not have: its client registers it again. */
    IGNORED_UNKNOWN
  }

  /**
   * How many things a command touched: instances refreshed ({@link Command.HeartbeatAll}), released
   * ({@link Command.Release}), handled by an expiry pass ({@link Command.Expire}), whose deadlines
   * moved ({@link Command.Stalled}); services removed ({@link Command.CleanUp}).
   */
  record Counted(int count) implements Outcome {}

  /** {@link Command.CreateService}, {@link Command.UpdateService}: the service as it now is. */
  record ServiceDefined(ServiceDefinition definition) implements Outcome {}

  /** {@link Command.DeleteService}: the revision of the deletion. */
  record ServiceRemoved(long revision) implements Outcome {}

  /** {@link Command.OverrideInstance}, {@link Command.PatchInstance}: the instance as subscribers now see it. */
  record Overridden(InstanceView instance) implements Outcome {}

  /** {@link Command.RecordHealth}: recorded (an event only if the health changed). */
  record HealthRecorded(boolean changed) implements Outcome {}

  /** Refused, having changed nothing; the message names the field or the rule, for the user. */
  record Refused(Failure failure, String message) implements Outcome {}
}
