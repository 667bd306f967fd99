package io.reactiveregistry.server.core;

import java.time.InstantSource;

/**
 * A hybrid logical clock: the stamps of this node's ephemeral registrations, which order a
 * registration against every one this node has heard of, whatever the machines' clocks say. A
 * stamp is the wall clock's millisecond shifted left 16 bits, raised above the last stamp this
 * node issued or observed: so a registration made after this node received another node's copy
 * is stamped above it, even when that node's clock runs ahead, and stamps stay close to real time
 * when clocks agree.
 */
final class HybridClock {
  private static final int LOGICAL_BITS = 16;

  private final InstantSource clock;
  private long last;

  HybridClock(InstantSource clock) {
    this.clock = clock;
  }

  /** A new stamp, above every stamp issued or observed so far. */
  long tick() {
    last = Math.max(last + 1, clock.millis() << LOGICAL_BITS);
    return last;
  }

  /** Another node's stamp was seen: later ticks are above it. */
  void observe(long stamp) {
    last = Math.max(last, stamp);
  }

  /** The wall-clock millisecond a stamp was issued at (by its node's clock). */
  static long millisOf(long stamp) {
    return stamp >>> LOGICAL_BITS;
  }
}
