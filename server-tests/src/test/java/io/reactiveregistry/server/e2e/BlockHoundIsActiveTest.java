package io.reactiveregistry.server.e2e;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Proves the end-to-end tests run with blocking detection on: a sleep on a parallel thread fails. */
class BlockHoundIsActiveTest {

  @Test
  void aBlockingCallOnANonBlockingThreadFails() {

    assertThatThrownBy(() -> Mono.fromCallable(() -> {
          Thread.sleep(1);
          return 1;
        })
        .subscribeOn(Schedulers.parallel())
        .block(Duration.ofSeconds(5)))
        .hasMessageContaining("Blocking call");
  }
}
