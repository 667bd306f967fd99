package io.reactiveregistry.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.rsocket.Payload;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * An event pushed to many subscribers from one loop is copied once into direct memory, which
 * their frames share; the copy is freed once the loop has moved on and every frame was written.
 */
class SharedEventPayloadsTest {
  private static <T> T onALoopThread(java.util.function.Supplier<T> work) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread loop = new FastThreadLocalThread(() -> {
      try {
        result.complete(work.get());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    });
    loop.start();
    return result.get();
  }

  /**
   * The buffer under every view of it. One unwrap is not enough: Netty's leak detector wraps one
   * allocation in 128 (sampled) in a leak-aware buffer, whose duplicates are wrapped again, so a
   * frame's data can be a wrapper of a duplicate of the copy.
   */
  private static ByteBuf root(ByteBuf buffer) {
    ByteBuf under = buffer;
    while (under.unwrap() != null) {
      under = under.unwrap();
    }
    return under;
  }

  @Test
  void oneEventsFramesShareOneDirectCopyFreedWhenAllAreWrittenAndTheLoopMovedOn() throws Exception {
    byte[] event = "{\"type\":\"UPSERT\",\"revision\":7}".getBytes(StandardCharsets.UTF_8);
    byte[] next = "{\"type\":\"REMOVE\",\"revision\":8}".getBytes(StandardCharsets.UTF_8);
    List<Object> seen = onALoopThread(() -> {
      List<Payload> frames = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        frames.add(SharedEventPayloads.of(event));
      }
      ByteBuf shared = root(frames.get(0).data());
      List<Object> out = new ArrayList<>();
      out.add(frames.stream().allMatch(p -> p.data().isDirect() && root(p.data()) == shared));
      out.add(frames.stream().allMatch(p -> p.getDataUtf8().equals(new String(event, StandardCharsets.UTF_8))));
      frames.forEach(Payload::release); // written
      out.add(shared.refCnt()); // still the loop's
      Payload after = SharedEventPayloads.of(next);
      out.add(shared.refCnt()); // the loop moved on: freed
      out.add(after.getDataUtf8());
      after.release();
      return out;
    });

    assertThat(seen.get(0)).as("direct, and one buffer for all").isEqualTo(true);
    assertThat(seen.get(1)).as("the event's bytes").isEqualTo(true);
    assertThat(seen.get(2)).isEqualTo(1);
    assertThat(seen.get(3)).isEqualTo(0);
    assertThat(seen.get(4)).isEqualTo(new String(next, StandardCharsets.UTF_8));
  }

  @Test
  void offAnEventLoopEachFrameWrapsTheBytes() {
    byte[] event = "{}".getBytes(StandardCharsets.UTF_8);
    Payload payload = SharedEventPayloads.of(event);
    assertThat(payload.getDataUtf8()).isEqualTo("{}");
    assertThat(payload.data().isDirect()).isFalse();
    payload.release();
  }
}
