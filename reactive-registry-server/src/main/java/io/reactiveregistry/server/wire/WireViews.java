package io.reactiveregistry.server.wire;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.core.InstanceView;
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

  public static ServiceSnapshot snapshot(ServiceView view) {
    List<InstanceBody> instances = new ArrayList<>(view.instances().size());
    for (InstanceView instance : view.instances()) {
      instances.add(instance(instance));
    }
    return new ServiceSnapshot(view.service().namespace(), view.service().group(), view.service().service(),
        view.ephemeral(), view.revision(), view.protectionTriggered(), instances);
  }
}
