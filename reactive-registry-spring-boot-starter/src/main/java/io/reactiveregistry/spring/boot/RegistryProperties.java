package io.reactiveregistry.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** The {@code reactive-registry.*} properties: the client, discovery and this application's registration. */
@ConfigurationProperties("reactive-registry")
// The protocol's defaults are written out as literals, not Protocol's constants, so that the
// generated metadata (and so the IDE) shows them; ConfigurationMetadataTest checks they agree.
public class RegistryProperties {
  /** Whether the registry client, discovery and registration are configured at all. */
  private boolean enabled = true;

  /** The registry servers to connect to: tcp://host:port, or ws://host:port/rsocket for WebSocket. */
  private List<String> servers = new ArrayList<>(List.of("tcp://127.0.0.1:7070"));

  /** The namespace of the services this application registers and looks up. */
  private String namespace = "public";

  /** The group of the services this application registers and looks up. */
  private String group = "DEFAULT_GROUP";

  /** The client's name as the server shows it; spring.application.name when not set. */
  private @Nullable String clientName;

  /** A token for a registry that requires authentication. */
  private @Nullable String token;

  /**
   * This application's zone: the client connects to the registry's members of this zone first
   * (members started with --zone), and the load balancer prefers instances whose metadata zone is
   * this zone while any of them serves traffic.
   */
  private @Nullable String zone;

  /** How long to wait for a connection to a server. */
  private Duration connectTimeout = Duration.ofSeconds(5);

  /** How long to wait for an answer to a request (and for the first view of a service). */
  private Duration requestTimeout = Duration.ofSeconds(10);

  /** The first wait before reconnecting after a lost connection; doubles up to reconnect-max-backoff. */
  private Duration reconnectMinBackoff = Duration.ofMillis(100);

  /** The longest wait between reconnection attempts. */
  private Duration reconnectMaxBackoff = Duration.ofSeconds(5);

  /**
   * A folder where the client keeps the views it watches, so that the application, started while
   * no registry server can be reached, discovers from them (stale) until one answers; unset: none.
   */
  private @Nullable Path viewCacheDirectory;

  /** How old a kept view may be and still be used. */
  private Duration viewCacheMaxAge = Duration.ofDays(1);

  /**
   * Whether a service's view keeps its last instances rather than turn empty, unless the service
   * was deleted (Nacos's push-empty protection).
   */
  private boolean pushEmptyProtection;

  public boolean isPushEmptyProtection() {
    return pushEmptyProtection;
  }

  public void setPushEmptyProtection(boolean pushEmptyProtection) {
    this.pushEmptyProtection = pushEmptyProtection;
  }

  public @Nullable Path getViewCacheDirectory() {
    return viewCacheDirectory;
  }

  public void setViewCacheDirectory(@Nullable Path viewCacheDirectory) {
    this.viewCacheDirectory = viewCacheDirectory;
  }

  public Duration getViewCacheMaxAge() {
    return viewCacheMaxAge;
  }

  public void setViewCacheMaxAge(Duration viewCacheMaxAge) {
    this.viewCacheMaxAge = viewCacheMaxAge;
  }

  private final Tls tls = new Tls();
  private final Discovery discovery = new Discovery();
  private final Registration registration = new Registration();

  /** TLS towards the registry: set at least trusted-certificates to connect over TLS. */
  public static class Tls {
    /** PEM file of the certificates that sign the servers' certificates. */
    private @Nullable Path trustedCertificates;

    /** PEM certificate chain this client presents, for servers that ask for client certificates. */
    private @Nullable Path certificate;

    /** PEM private key (PKCS#8) of that certificate. */
    private @Nullable Path key;

    public @Nullable Path getTrustedCertificates() {
      return trustedCertificates;
    }

    public void setTrustedCertificates(@Nullable Path trustedCertificates) {
      this.trustedCertificates = trustedCertificates;
    }

    public @Nullable Path getCertificate() {
      return certificate;
    }

    public void setCertificate(@Nullable Path certificate) {
      this.certificate = certificate;
    }

    public @Nullable Path getKey() {
      return key;
    }

    public void setKey(@Nullable Path key) {
      this.key = key;
    }

    boolean configured() {
      return trustedCertificates != null || certificate != null || key != null;
    }
  }

  /** Discovery: DiscoveryClient, ReactiveDiscoveryClient and the load balancer's instance lists. */
  public static class Discovery {
    /** Whether the registry backs DiscoveryClient, ReactiveDiscoveryClient and Spring Cloud LoadBalancer. */
    private boolean enabled = true;

    /** The cluster whose instances the load balancer prefers while it has any that serve traffic. */
    private @Nullable String preferredCluster;

    /**
     * Whether the catalog of the namespace and group is watched, publishing Spring Cloud's
     * HeartbeatEvent on every change (Spring Cloud Gateway's discovery routes refresh at once).
     */
    private boolean catalogEvents = true;

    /**
     * A selector over instance metadata per service id (the contract's "Selectors"; for example
     * orders: "version=v2,zone in (a,b)"): the load balancer calls only the instances it selects,
     * with protection computed on those.
     */
    private Map<String, String> selectors = new LinkedHashMap<>();

    public Map<String, String> getSelectors() {
      return selectors;
    }

    public void setSelectors(Map<String, String> selectors) {
      this.selectors = selectors;
    }

    public boolean isCatalogEvents() {
      return catalogEvents;
    }

    public void setCatalogEvents(boolean catalogEvents) {
      this.catalogEvents = catalogEvents;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public @Nullable String getPreferredCluster() {
      return preferredCluster;
    }

    public void setPreferredCluster(@Nullable String preferredCluster) {
      this.preferredCluster = preferredCluster;
    }
  }

  /** This application's own instance, registered once its web server has started. */
  public static class Registration {
    /** Whether this application registers itself when its web server has started. */
    private boolean enabled = true;

    /** The service to register as; spring.application.name when not set. */
    private @Nullable String service;

    /** The address to register; the first non-loopback address of this host when not set. */
    private @Nullable String ip;

    /** The port to register; the web server's port when not set. */
    private @Nullable Integer port;

    /** The cluster the instance belongs to. */
    private String cluster = "DEFAULT";

    /** The instance's share of traffic relative to the service's other instances (0 takes none). */
    private double weight = 1.0;

    /** Whether the instance is ephemeral (kept alive by this application's heartbeats) or persistent. */
    private boolean ephemeral = true;

    /** Whether callers should use https: registered as the metadata entry "secure". */
    private boolean secure;

    /** Metadata registered with the instance. */
    private Map<String, String> metadata = new LinkedHashMap<>();

    /**
     * How long the application keeps taking requests after deregistering on shutdown, so that
     * callers' pushed views drop it before its web server stops listening.
     */
    private Duration deregisterGrace = Duration.ofMillis(300);

    public Duration getDeregisterGrace() {
      return deregisterGrace;
    }

    public void setDeregisterGrace(Duration deregisterGrace) {
      this.deregisterGrace = deregisterGrace;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public @Nullable String getService() {
      return service;
    }

    public void setService(@Nullable String service) {
      this.service = service;
    }

    public @Nullable String getIp() {
      return ip;
    }

    public void setIp(@Nullable String ip) {
      this.ip = ip;
    }

    public @Nullable Integer getPort() {
      return port;
    }

    public void setPort(@Nullable Integer port) {
      this.port = port;
    }

    public String getCluster() {
      return cluster;
    }

    public void setCluster(String cluster) {
      this.cluster = cluster;
    }

    public double getWeight() {
      return weight;
    }

    public void setWeight(double weight) {
      this.weight = weight;
    }

    public boolean isEphemeral() {
      return ephemeral;
    }

    public void setEphemeral(boolean ephemeral) {
      this.ephemeral = ephemeral;
    }

    public boolean isSecure() {
      return secure;
    }

    public void setSecure(boolean secure) {
      this.secure = secure;
    }

    public Map<String, String> getMetadata() {
      return metadata;
    }

    public void setMetadata(Map<String, String> metadata) {
      this.metadata = metadata;
    }
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public List<String> getServers() {
    return servers;
  }

  public void setServers(List<String> servers) {
    this.servers = servers;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public String getGroup() {
    return group;
  }

  public void setGroup(String group) {
    this.group = group;
  }

  public @Nullable String getClientName() {
    return clientName;
  }

  public void setClientName(@Nullable String clientName) {
    this.clientName = clientName;
  }

  public @Nullable String getZone() {
    return zone;
  }

  public void setZone(@Nullable String zone) {
    this.zone = zone;
  }

  public @Nullable String getToken() {
    return token;
  }

  public void setToken(@Nullable String token) {
    this.token = token;
  }

  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  public void setConnectTimeout(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
  }

  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  public void setRequestTimeout(Duration requestTimeout) {
    this.requestTimeout = requestTimeout;
  }

  public Duration getReconnectMinBackoff() {
    return reconnectMinBackoff;
  }

  public void setReconnectMinBackoff(Duration reconnectMinBackoff) {
    this.reconnectMinBackoff = reconnectMinBackoff;
  }

  public Duration getReconnectMaxBackoff() {
    return reconnectMaxBackoff;
  }

  public void setReconnectMaxBackoff(Duration reconnectMaxBackoff) {
    this.reconnectMaxBackoff = reconnectMaxBackoff;
  }

  public Tls getTls() {
    return tls;
  }

  public Discovery getDiscovery() {
    return discovery;
  }

  public Registration getRegistration() {
    return registration;
  }
}
