package io.reactiveregistry.server.e2e;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * BlockHound runs in every test JVM of the server and of the client (installed when the test plan
 * starts, by {@link BlockingDetection}), so a blocking call on a Netty or Reactor
 * non-blocking thread fails the test that made it. These are the few library-internal short locks
 * it must not count, each at the exact frame that takes it. Registered through
 * {@code META-INF/services}; the client's tests get it from this module's test jar.
 */
public final class NonBlockingAllowances implements BlockHoundIntegration {

  @Override
  public void applyTo(BlockHound.Builder builder) {
    builder
        // Logging goes through Logback's AsyncAppender, which only offers to a queue; its lock is
        // held for nanoseconds and never across I/O.
        .allowBlockingCallsInside("ch.qos.logback.core.AsyncAppenderBase", "append")
        // When a connection ends, RSocket cancels its keepalive timer: the JDK scheduler removes it
        // from its queue under that queue's lock, held for microseconds, never across I/O.
        .allowBlockingCallsInside("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "remove")
        // Netty 4.2's pooling allocator takes a short lock when it grows its pools.
        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
        // Ratis's gRPC reads its shaded Netty's version files once, when its first connection
        // initialises a class (Ratis's own event loops, not the registry's).
        .allowBlockingCallsInside("org.apache.ratis.thirdparty.io.netty.util.Version", "identify")
        // Out of memory, the server writes why to stderr and halts, from whatever thread saw it.
        .allowBlockingCallsInside("io.reactiveregistry.server.process.FatalErrors", "check");
  }
}
