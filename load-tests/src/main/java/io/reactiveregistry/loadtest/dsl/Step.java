package io.reactiveregistry.loadtest.dsl;

import io.reactiveregistry.loadtest.engine.VirtualUser;
import reactor.core.publisher.Mono;

/** One thing a virtual user does; completes when it is done. Never blocks. */
@FunctionalInterface
public interface Step {
  Mono<Void> run(VirtualUser user);
}
