package io.reactiveregistry.server.storage;

import org.apache.ratis.thirdparty.io.netty.util.ResourceLeakDetector;

/** The copy of Netty inside Ratis (its Raft links): what the server process changes in its defaults. */
public final class RaftNetty {
  /** Netty's leak detection property as Ratis's copy reads it, its package in front. */
  public static final String LEAK_DETECTION = "org.apache.ratis.thirdparty.io.netty.leakDetection.level";

  private RaftNetty() {}

  public static void disableLeakDetection() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
  }
}
