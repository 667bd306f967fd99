package io.reactiveregistry.server.storage;

/** Who leads the group, as Ratis last said; read on any thread without touching Ratis's locks. */
final class LeaderWatch {
  private final String self;
  private volatile String leader;

  LeaderWatch(String self) {
    this.self = self;
  }

  void changed(String newLeader) {
    leader = newLeader;
  }

  boolean leading() {
    return self.equals(leader);
  }
}
