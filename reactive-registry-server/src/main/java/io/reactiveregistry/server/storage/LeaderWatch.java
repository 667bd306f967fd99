package io.reactiveregistry.server.storage;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** Who leads the group, as Ratis last said; read on any thread without touching Ratis's locks. */
final class LeaderWatch {
  private final String self;
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private volatile String leader;

  LeaderWatch(String self) {
    this.self = self;
  }

  void changed(String newLeader) {
    leader = newLeader;
    for (Consumer<String> listener : listeners) {
      listener.accept(newLeader);
    }
  }

  void listen(Consumer<String> listener) {
    listeners.add(listener);
  }

  boolean leading() {
    return self.equals(leader);
  }

  String leader() {
    return leader;
  }
}
