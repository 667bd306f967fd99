package io.reactiveregistry.server.wire;

import io.reactiveregistry.protocol.message.BatchResult;
import io.reactiveregistry.protocol.message.DeregisterResult;
import io.reactiveregistry.protocol.message.RegisterResult;
import io.reactiveregistry.protocol.message.ServiceDetail;
import io.reactiveregistry.server.core.Outcome;
import io.reactiveregistry.server.core.ServiceDefinition;
import java.util.Map;

/**
 * The one place where a command's {@link Outcome} becomes the contract's answer body. A {@link
 * Outcome.Refused} is not a body: the edge answers it from the error table.
 */
public final class OutcomeEncoder {
  private OutcomeEncoder() {}

  /** The answer's body, to be encoded as JSON. */
  public static Object body(Outcome outcome) {
    if (outcome instanceof Outcome.Registered r) {
      return new RegisterResult(r.instanceId(), r.revision(), r.timings().intervalMs(), r.timings().timeoutMs(),
          r.timings().deleteTimeoutMs());
    } else if (outcome instanceof Outcome.BatchRegistered b) {
      return new BatchResult(b.instanceIds(), b.revision(), b.heartbeatIntervalMs());
    } else if (outcome instanceof Outcome.Deregistered d) {
      return new DeregisterResult(d.removed(), d.revision());
    } else if (outcome instanceof Outcome.ServiceDefined s) {
      return detail(s.definition());
    } else if (outcome instanceof Outcome.ServiceRemoved) {
      return Map.of("deleted", true);
    } else if (outcome instanceof Outcome.Overridden o) {
      return WireViews.instance(o.instance());
    }
    // A refusal is answered from the error table; heartbeats and the lifecycle's passes are not answered.
    throw new IllegalArgumentException("no request is answered with " + outcome);
  }

  public static ServiceDetail detail(ServiceDefinition d) {
    return new ServiceDetail(d.service().namespace(), d.service().group(), d.service().service(), d.ephemeral(),
        d.protectThreshold(), d.metadata(), d.revision(), d.clusters(), d.instanceCount());
  }

}
