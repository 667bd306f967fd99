package io.reactiveregistry.server.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/** Where an OutOfMemoryError ends the process once exiting is on, with the halt recorded instead of carried out. */
class FatalErrorsTest {
  private final List<Integer> halts = new CopyOnWriteArrayList<>();

  @BeforeEach
  void watch() {
    FatalErrors.exitOnOutOfMemory(halts::add);
  }

  @AfterEach
  void stopWatching() {
    FatalErrors.reset();
  }

  @Test
  void anUncaughtOutOfMemoryErrorOnAnyThreadHaltsWithStatusThree() throws Exception {
    Thread worker = new Thread(() -> {
      throw new OutOfMemoryError("Java heap space");
    }, "some-library-worker");
    worker.start();
    worker.join();
    assertThat(halts).containsExactly(3);
  }

  @Test
  void oneReactorDropsOrASchedulersTaskThrowsHaltsToo() {
    // What Reactor's operators do with an error that arrives after they have terminated. (An
    // operator rethrows a JVM-fatal error instead, which ends up uncaught on its thread: above.)
    Operators.onErrorDropped(new OutOfMemoryError("dropped"), Context.empty());
    assertThat(halts).containsExactly(3);

    Schedulers.parallel().schedule(() -> {
      throw new OutOfMemoryError("in a task");
    });
    await().atMost(Duration.ofSeconds(5)).until(() -> halts.size() == 2);
  }

  @Test
  void aCauseIsEnoughAndOtherErrorsAreLeftAlone() throws Exception {
    FatalErrors.check(new IllegalStateException("storage failed", new OutOfMemoryError("log worker")));
    assertThat(halts).containsExactly(3);

    FatalErrors.check(new IllegalStateException("an ordinary failure"));
    FatalErrors.check(new StackOverflowError());
    // Netty's direct-memory ceiling (its constructor is Netty's own): one connection's problem.
    var directMemory = io.netty.util.internal.OutOfDirectMemoryError.class.getDeclaredConstructor(String.class);
    directMemory.setAccessible(true);
    FatalErrors.check(directMemory.newInstance("failed to allocate 4 MiB of direct memory"));
    Mono.error(new RuntimeException("an error nobody reads")).subscribe(value -> { }, error -> { });
    assertThat(halts).containsExactly(3);
  }

  @Test
  void withoutExitingOnNothingHalts() {
    FatalErrors.reset();
    FatalErrors.check(new OutOfMemoryError("embedded: the host decides"));
    assertThat(halts).isEmpty();
  }
}
