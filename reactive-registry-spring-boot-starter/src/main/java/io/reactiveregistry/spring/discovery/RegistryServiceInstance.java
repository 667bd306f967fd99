package io.reactiveregistry.spring.discovery;

import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.cloud.client.ServiceInstance;

/**
 * A registry instance as Spring Cloud sees it. The metadata is the instance's own, plus
 * {@code cluster}, {@code weight}, {@code healthy} and {@code enabled} where the instance's
 * metadata does not use those keys itself; {@code secure=true} in the metadata means https.
 */
public final class RegistryServiceInstance implements ServiceInstance {
  private final ServiceName service;
  private final InstanceBody instance;
  private final Map<String, String> metadata;

  public RegistryServiceInstance(ServiceName service, InstanceBody instance) {
    this.service = service;
    this.instance = instance;
    Map<String, String> all = new LinkedHashMap<>(instance.metadata() == null ? Map.of() : instance.metadata());
    all.putIfAbsent("cluster", instance.cluster());
    all.putIfAbsent("weight", String.valueOf(weight()));
    all.putIfAbsent("healthy", String.valueOf(!Boolean.FALSE.equals(instance.healthy())));
    all.putIfAbsent("enabled", String.valueOf(!Boolean.FALSE.equals(instance.enabled())));
    this.metadata = Map.copyOf(all);
  }

  /** The registry's own view of the instance. */
  public InstanceBody instance() {
    return instance;
  }

  public double weight() {
    return instance.weight() == null ? 1.0 : instance.weight();
  }

  @Override
  public String getInstanceId() {
    return instance.instanceId();
  }

  @Override
  public String getServiceId() {
    return service.service();
  }

  @Override
  public String getHost() {
    return instance.ip();
  }

  @Override
  public int getPort() {
    return instance.port();
  }

  @Override
  public boolean isSecure() {
    return instance.metadata() != null && Boolean.parseBoolean(instance.metadata().get("secure"));
  }

  @Override
  public URI getUri() {
    return ServiceInstance.createUri(this);
  }

  @Override
  public Map<String, String> getMetadata() {
    return metadata;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RegistryServiceInstance that && service.equals(that.service)
        && instance.equals(that.instance);
  }

  @Override
  public int hashCode() {
    return Objects.hash(service, instance);
  }

  @Override
  public String toString() {
    return service + " " + instance.instanceId();
  }
}
