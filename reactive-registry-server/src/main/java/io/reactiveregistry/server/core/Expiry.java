package io.reactiveregistry.server.core;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * When ephemeral instances turn unhealthy or go for missed heartbeats, and when the registry holds
 * back from that (self-preservation): heartbeat deadlines, the expected and received heartbeats, and
 * a random draw from what is due. It decides; the registry carries the decisions out.
 */
final class Expiry {
  /** What an expiry pass decided about one instance. */
  interface Verdicts {
    /** Silent past its delete timeout: it goes. */
    void dead(RegisteredInstance instance);

    /** Silent past its timeout: it turns unhealthy. */
    void unhealthy(RegisteredInstance instance);
  }

  private final LifecycleConfig lifecycle;
  private final RandomGenerator random;
  private final ExpiryQueue deadlines = new ExpiryQueue();
  /** Instances whose deadline has come, waiting to be drawn at random by an expiry pass. */
  private final List<RegisteredInstance> duePool = new ArrayList<>();
  private final HeartbeatAccounting heartbeats;
  private boolean selfPreserving;

  Expiry(LifecycleConfig lifecycle, RandomGenerator random) {
    this.lifecycle = lifecycle;
    this.random = random;
    this.heartbeats = new HeartbeatAccounting((int) Math.max(1, lifecycle.selfPreservationWindow().toSeconds()));
  }

  /** Looks at the instance again at its next deadline. */
  void schedule(RegisteredInstance instance) {
    deadlines.schedule(instance, instance.nextDeadline());
  }

  /** A new ephemeral instance, whose registration counts as its first heartbeat. */
  void added(RegisteredInstance instance, long now) {
    schedule(instance);
    heartbeats.instanceAdded(instance.timings);
    heartbeats.received(now, 1);
  }

  /** An ephemeral instance registered again, perhaps with new timings; counts as a heartbeat. */
  void reregistered(HeartbeatTimings before, HeartbeatTimings after, long now) {
    heartbeats.instanceRemoved(before);
    heartbeats.instanceAdded(after);
    heartbeats.received(now, 1);
  }

  void removed(RegisteredInstance instance) {
    heartbeats.instanceRemoved(instance.timings);
  }

  void heartbeatsReceived(long now, int count) {
    heartbeats.received(now, count);
  }

  /**
   * One expiry pass. Every due instance waits in a pool, from which the pass draws at random, at
   * most {@code budget}: a mass expiry is spread over time and over services, never one service
   * wiped first. In self-preservation nothing expires for missed heartbeats.
   *
   * @return how many instances were handled; equal to the budget when more may be due
   */
  int expire(long now, int budget, Verdicts verdicts) {
    heartbeats.accrue(now);
    selfPreserving = lifecycle.selfPreservation() && heartbeats.ratio(now) < lifecycle.selfPreservationThreshold();
    RegisteredInstance due;
    while ((due = deadlines.pollDue(now)) != null) {
      duePool.add(due);
    }
    if (selfPreserving) {
      return 0;
    }
    int handled = 0;
    while (handled < budget && !duePool.isEmpty()) {
      RegisteredInstance candidate = takeRandomDue();
      if (candidate.removed || candidate.replica()) { // a copy's heartbeats go to its own node
        continue;
      }
      handled++;
      if (candidate.deadAt(now)) {
        verdicts.dead(candidate);
        continue;
      }
      if (candidate.view.healthy() && candidate.unhealthyAt(now)) {
        verdicts.unhealthy(candidate);
      }
      schedule(candidate);
    }
    return handled;
  }

  /**
   * The server did not run for {@code millis}: the instance's last heartbeat moves forward by it
   * (never past now). Call for every ephemeral instance, then {@link #stallEnded}.
   */
  void stalled(RegisteredInstance instance, long now, long millis) {
    instance.lastHeartbeatAt = Math.min(now, instance.lastHeartbeatAt + millis);
  }

  /** The heartbeats expected during a stall are not counted for self-preservation. */
  void stallEnded(long now) {
    heartbeats.skip(now);
  }

  /** Whether missed heartbeats are currently not expiring instances (as of the last pass). */
  HeartbeatFigures heartbeatFigures(long now) {
    return heartbeats.figures(now, lifecycle.selfPreservationThreshold(), lifecycle.selfPreservation());
  }

  boolean selfPreserving() {
    return selfPreserving;
  }

  /** Removes a random member of the due pool in constant time (the last one takes its place). */
  private RegisteredInstance takeRandomDue() {
    int index = random.nextInt(duePool.size());
    RegisteredInstance taken = duePool.get(index);
    RegisteredInstance last = duePool.remove(duePool.size() - 1);
    if (index < duePool.size()) {
      duePool.set(index, last);
    }
    return taken;
  }
}
