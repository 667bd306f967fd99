package io.reactiveregistry.loadtest.engine;

import java.net.URI;
import java.util.TreeMap;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Where a run's timed pushes begin and end, for the server's push latency: a simulation that
 * marks them (the fan-out's publisher, from its first change until every subscriber has every
 * change) has the server's histogram read there, so that the pushes it does not time — its
 * instance appearing before and leaving after, thousands at once — do not weigh on the tail it
 * reports. Unmarked, the run's whole length is read.
 */
public final class PushWindow {
  private final URI metrics;
  private volatile TreeMap<Double, Double> start;
  private volatile TreeMap<Double, Double> end;
  private final Sinks.One<Boolean> ended = Sinks.one();

  PushWindow(URI metrics) {
    this.metrics = metrics;
  }

  /** Reads the server's histogram now, as the start ({@code true}) or the end of the timed pushes; blocks. */
  public void mark(boolean atStart) {
    TreeMap<Double, Double> now = metrics == null ? null : ServerPushLatency.scrape(metrics);
    if (atStart) {
      start = now;
    } else {
      end = now;
      ended.tryEmitValue(true);
    }
  }

  /**
   * Emits once the timed pushes have ended (every subscriber has every change, or the publisher
   * stopped waiting): the fan-out's subscribers let go of their streams then instead of holding
   * them to the end of their longest possible hold. Never, in a run that marks nothing.
   */
  public Mono<Boolean> ended() {
    return ended.asMono();
  }

  /** The marked window's latency if both marks were read, else the run's ({@code before} to {@code after}). */
  ServerPushLatency measured(TreeMap<Double, Double> before, TreeMap<Double, Double> after) {
    TreeMap<Double, Double> from = start;
    TreeMap<Double, Double> to = end;
    return from != null && to != null ? ServerPushLatency.between(from, to) : ServerPushLatency.between(before, after);
  }
}
