package io.reactiveregistry.spring.registration;

import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.protocol.message.InstanceBody;
import java.net.URI;
import java.util.Map;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.serviceregistry.Registration;

/**
 * This application's instance as Spring Cloud's {@link Registration}: what is registered, and
 * where. A bean, as Spring Cloud's {@code /actuator/serviceregistry} needs one, made before the
 * web server has a port: the port is filled in once it has ({@link #atPort}).
 */
public final class RegistryRegistration implements Registration {
  private final ServiceName service;
  private final boolean ephemeral;
  private volatile InstanceBody instance;

  public RegistryRegistration(ServiceName service, InstanceBody instance, boolean ephemeral) {
    this.service = service;
    this.instance = instance;
    this.ephemeral = ephemeral;
  }

  public ServiceName service() {
    return service;
  }

  /** The instance as configured (its port 0 until the web server has one, unless configured). */
  public InstanceBody instance() {
    return instance;
  }

  public boolean ephemeral() {
    return ephemeral;
  }

  /** This registration on {@code port}, the web server's, when no port was configured. */
  RegistryRegistration atPort(int port) {
    InstanceBody now = instance;
    if (now.port() == null || now.port() == 0) {
      instance = new InstanceBody(now.instanceId(), now.ip(), port, now.cluster(), now.weight(), now.enabled(),
          now.healthy(), now.ephemeral(), now.metadata());
    }
    return this;
  }

  @Override
  public String getInstanceId() {
    InstanceBody now = instance;
    return now.ip() + "#" + now.port() + "#" + now.cluster();
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

  @Override
  public String toString() {
    return "RegistryRegistration[" + service + " " + getInstanceId() + (ephemeral ? "" : " persistent") + "]";
  }
}
