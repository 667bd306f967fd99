package io.reactiveregistry.server.wire;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.InstanceDetails;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.core.InstanceOverride;
import io.reactiveregistry.server.core.InstanceView;
import io.reactiveregistry.server.core.Results;
import io.reactiveregistry.server.core.ServiceView;
import java.util.ArrayList;
import java.util.List;

/** Core views as contract bodies. */
public final class WireViews {
  private WireViews() {}

  public static InstanceBody instance(InstanceView view) {
    return new InstanceBody(view.instanceId(), view.ip(), view.port(), view.cluster(), view.weight(), view.enabled(),
        view.healthy(), view.ephemeral(), view.metadata());
  }

  /** An instance as an operator sees it ({@code admin.service.instances}). */
  public static InstanceDetails.Detail detail(Results.InstanceRecord record) {
    InstanceOverride override = record.override();
    return new InstanceDetails.Detail(instance(record.view()), record.owner(),
        record.ownerId() > 0 ? record.ownerId() : null, record.lastHeartbeatAt(),
        override == null ? null : new InstanceDetails.Overridden(override.enabled(), override.weight(),
            override.metadata()),
        record.lastCheck() == null ? null : new InstanceDetails.LastCheck(record.lastCheck().at(),
            record.lastCheck().healthy(), record.lastCheck().latencyMillis(), record.lastCheck().reason()));
  }

  public static ServiceSnapshot snapshot(ServiceView view) {
    List<InstanceBody> instances = new ArrayList<>(view.instances().size());
    for (InstanceView instance : view.instances()) {
      instances.add(instance(instance));
    }
    return new ServiceSnapshot(view.service().namespace(), view.service().group(), view.service().service(),
        view.ephemeral(), view.revision(), view.protectionTriggered(), instances);
  }
}
