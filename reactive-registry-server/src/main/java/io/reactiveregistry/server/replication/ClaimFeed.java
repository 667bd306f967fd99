package io.reactiveregistry.server.replication;

import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.server.core.InstanceAddress;
import io.reactiveregistry.server.core.ReplicaChange;
import io.reactiveregistry.server.core.ReplicaDigest;
import io.reactiveregistry.server.push.Drain;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;

/**
 * One peer's stream of this node's claims: the snapshot, then the changes in order, and a digest
 * now and then, each frame sent only when the peer asked for it. While the peer does not ask,
 * changes wait coalesced (the latest per instance), so what waits is bounded by what this node
 * owns, however long the peer lags. At most one digest waits: a later one is skipped.
 */
final class ClaimFeed {
  /** Claims per frame: a frame stays far below RSocket's 16 MB even with large metadata. */
  static final int PAGE = 256;
  private static final JsonCodec json = JsonCodec.json();

  private record Snapshot(long epoch, List<ReplicaChange.Claimed> claims) {}

  final String peer;
  private final String self;
  /** Where drains run: never under the runtime's monitor, which offers the changes. */
  private final Executor drainer;
  /** Snapshot, change segments (a map, the latest per instance) and digests, in stream order. */
  private final Deque<Object> queue = new ArrayDeque<>();
  /** Sends what the peer asked for, one frame at a time, in queue order. */
  private final Drain drain = new Drain(this::nextFrame);
  private boolean digestWaiting;
  /** The clients this node holds, sent with the next digest. */
  private ClientLoad digestLoad = ClientLoad.NONE;
  /** This node's zone, sent with the next digest. */
  private @Nullable String digestZone;
  private int waitingChanges;

  ClaimFeed(String peer, String self, long epoch, List<ReplicaChange.Claimed> snapshot, Scheduler drainer) {
    this.peer = peer;
    this.self = self;
    this.drainer = drainer::schedule;
    queue.add(new Snapshot(epoch, snapshot));
  }

  void attach(FluxSink<byte[]> sink) {
    drain.attach(sink);
    sink.onRequest(n -> drain());
    drain();
  }

  /** Called under the runtime's monitor, in the order the changes were made. */
  synchronized void changes(List<ReplicaChange> changes) {
    @SuppressWarnings("unchecked")
    Map<InstanceAddress, ReplicaChange> segment = queue.peekLast() instanceof Map<?, ?> last
        ? (Map<InstanceAddress, ReplicaChange>) last : null;
    if (segment == null) {
      segment = new LinkedHashMap<>();
      queue.add(segment);
    }
    for (ReplicaChange change : changes) {
      if (segment.put(change.address(), change) == null) {
        waitingChanges++;
      }
    }
    drain();
  }

  /** Called under the runtime's monitor: what this node's claims sum to after every change queued so far. */
  synchronized void digest(ReplicaDigest digest, ClientLoad load, @Nullable String zone) {
    digestLoad = load;
    digestZone = zone;
    if (!digestWaiting) {
      digestWaiting = true;
      queue.add(digest);
      drain();
    }
  }

  /** Changes queued for this peer and not yet sent. */
  synchronized int waitingChanges() {
    return waitingChanges;
  }

  /**
   * Something to send, or room to send it: a drain is handed off to the drainer (never run under
   * the runtime's monitor, which calls this), one however often it is asked for meanwhile.
   */
  void drain() {
    drain.handOff(drainer);
  }

  private byte @Nullable [] nextFrame() {
    ReplicaFrame frame = next();
    return frame == null ? null : json.encode(frame);
  }

  private synchronized ReplicaFrame next() {
    Object head = queue.peekFirst();
    if (head instanceof Snapshot snapshot) {
      List<ReplicaChange.Claimed> claims = snapshot.claims;
      int size = Math.min(PAGE, claims.size());
      List<ReplicaChange.Claimed> page = claims.subList(0, size);
      ReplicaFrame frame = new ReplicaFrame(ReplicaFrame.SNAPSHOT, self, snapshot.epoch, ReplicaCodec.entries(page),
          size == claims.size(), null, null, null, null, null, null);
      queue.pollFirst();
      if (size < claims.size()) {
        queue.addFirst(new Snapshot(snapshot.epoch, claims.subList(size, claims.size())));
      }
      return frame;
    }
    if (head instanceof ReplicaDigest digest) {
      queue.pollFirst();
      digestWaiting = false;
      return new ReplicaFrame(ReplicaFrame.DIGEST, null, null, null, null, digest.count(), digest.hash(),
          digestLoad.connections(), digestZone, digestLoad.nacosConnections() < 0 ? null : digestLoad.nacosConnections(),
          digestLoad.nacosPort() < 0 ? null : digestLoad.nacosPort());
    }
    if (head instanceof Map<?, ?> segment) {
      List<ReplicaChange> page = new ArrayList<>(Math.min(PAGE, segment.size()));
      Iterator<?> values = segment.values().iterator();
      while (values.hasNext() && page.size() < PAGE) {
        page.add((ReplicaChange) values.next());
        values.remove();
      }
      waitingChanges -= page.size();
      if (segment.isEmpty()) {
        queue.pollFirst();
      }
      return new ReplicaFrame(ReplicaFrame.CHANGES, null, null, ReplicaCodec.entries(page), null, null, null, null,
          null, null, null);
    }
    return null;
  }
}
