package io.reactiveregistry.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.reactiveregistry.server.push.DrainLoop;
import java.util.concurrent.TimeUnit;

/**
 * A connection's event loop as the place its subscriptions' events are written from, and its
 * outbound buffer as the measure of whether the peer keeps up. While more than {@code
 * pauseAboveBytes} wait to be written, subscriptions hold their events back (where they coalesce,
 * or collapse into a snapshot) instead of queueing them behind each other in the buffer — where
 * they would also hold up the answers to the peer's own requests.
 */
final class ChannelDrainLoop implements DrainLoop {
  private final Channel channel;
  private final long pauseAboveBytes;

  ChannelDrainLoop(Channel channel, long pauseAboveBytes) {
    this.channel = channel;
    this.pauseAboveBytes = pauseAboveBytes;
  }

  @Override
  public void execute(Runnable task) {
    channel.eventLoop().execute(task);
  }

  @Override
  public void schedule(Runnable task, long delayNanos) {
    channel.eventLoop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public boolean inLoop() {
    return channel.eventLoop().inEventLoop();
  }

  @Override
  public Object thread() {
    return channel.eventLoop();
  }

  @Override
  public boolean congested() {
    ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
    return buffer != null && buffer.totalPendingWriteBytes() > pauseAboveBytes;
  }
}
