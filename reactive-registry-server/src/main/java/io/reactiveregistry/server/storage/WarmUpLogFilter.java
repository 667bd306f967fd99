package io.reactiveregistry.server.storage;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Keeps Ratis's lines about the throwaway group of {@link LeaderPathWarmUp} out of the server's
 * log (the server's {@code logback.xml} puts it on its appender): its servers lose peers as they
 * close, and Ratis says so at WARN and ERROR, which an operator would read as trouble in the real
 * group. A line is the warm-up's when it names one of its peers, in its text or its thread's name.
 */
public final class WarmUpLogFilter extends Filter<ILoggingEvent> {
  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (!event.getLoggerName().startsWith("org.apache.ratis")) {
      return FilterReply.NEUTRAL;
    }
    boolean warmUp = event.getThreadName().contains(LeaderPathWarmUp.PEER_PREFIX)
        || event.getFormattedMessage().contains(LeaderPathWarmUp.PEER_PREFIX);
    return warmUp ? FilterReply.DENY : FilterReply.NEUTRAL;
  }
}
