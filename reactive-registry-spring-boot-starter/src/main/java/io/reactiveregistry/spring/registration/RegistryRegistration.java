package io.reactiveregistry.spring.registration;

import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import java.net.URI;
import java.util.Map;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.serviceregistry.Registration;

/** This application's instance as Spring Cloud's {@link Registration}: what is registered, and where. */
public record RegistryRegistration(ServiceName service, InstanceBody instance, boolean ephemeral)
    implements Registration {

  @Override
  public String getInstanceId() {
    return instance.ip() + "#" + instance.port() + "#" + instance.cluster();
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
    return Boolean.parseBoolean(getMetadata().get("secure"));
  }

  @Override
  public URI getUri() {
    return ServiceInstance.createUri(this);
  }

  @Override
  public Map<String, String> getMetadata() {
    return instance.metadata() == null ? Map.of() : instance.metadata();
  }
}
