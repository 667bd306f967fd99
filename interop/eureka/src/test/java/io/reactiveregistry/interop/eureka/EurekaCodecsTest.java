package io.reactiveregistry.interop.eureka;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.appinfo.DataCenterInfo;
import com.netflix.appinfo.InstanceInfo;
import com.netflix.appinfo.LeaseInfo;
import com.netflix.appinfo.MyDataCenterInfo;
import com.netflix.discovery.converters.EurekaJacksonCodec;
import com.netflix.discovery.converters.JsonXStream;
import com.netflix.discovery.converters.XmlXStream;
import com.netflix.discovery.converters.jackson.EurekaJsonJacksonCodec;
import com.netflix.discovery.shared.Application;
import com.netflix.discovery.shared.Applications;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each of the Eureka client's own codecs (XStream's XML and JSON, both Jackson JSON codecs) writes
 * an InstanceInfo the door registers, and reads the door's documents back into the InstanceInfo it
 * wrote, with a reconcile hash that matches the one the door sent.
 */
class EurekaCodecsTest {
  static final Duration WAIT = Duration.ofSeconds(10);
  final HttpClient http = HttpClient.newHttpClient();
  RegistryServer server;

  /** A codec of the Eureka client's, as the media type it speaks, an encoder and a decoder. */
  interface Codec {
    String mediaType();

    byte[] encode(Object value) throws IOException;

    <T> T decode(byte[] body, Class<T> type) throws IOException;
  }

  static Stream<Codec> codecs() {
    return Stream.of(
        codec("application/xml", "XStream XML", XmlXStream.getInstance()::toXML,
            (body, type) -> XmlXStream.getInstance().fromXML(new ByteArrayInputStream(body))),
        codec("application/json", "XStream JSON", JsonXStream.getInstance()::toXML,
            (body, type) -> JsonXStream.getInstance().fromXML(new ByteArrayInputStream(body))),
        codec("application/json", "legacy Jackson JSON (Spring Cloud's)", value -> {
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          EurekaJacksonCodec.getInstance().writeTo(value, out);
          return out.toString(StandardCharsets.UTF_8);
        }, (body, type) -> EurekaJacksonCodec.getInstance().readValue(type, new ByteArrayInputStream(body))),
        codec("application/json", "Jackson JSON", value -> new EurekaJsonJacksonCodec()
            .getObjectMapper(value.getClass()).writeValueAsString(value),
            (body, type) -> new EurekaJsonJacksonCodec().getObjectMapper(type).readValue(body, type)));
  }

  interface Encoder {
    String encode(Object value) throws IOException;
  }

  interface Decoder {
    Object decode(byte[] body, Class<?> type) throws IOException;
  }

  static Codec codec(String mediaType, String name, Encoder encoder, Decoder decoder) {
    return new Codec() {
      @Override
      public String mediaType() {
        return mediaType;
      }

      @Override
      public byte[] encode(Object value) throws IOException {
        return encoder.encode(value).getBytes(StandardCharsets.UTF_8);
      }

      @Override
      @SuppressWarnings("unchecked")
      public <T> T decode(byte[] body, Class<T> type) throws IOException {
        return (T) decoder.decode(body, type);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  @BeforeEach
  void start() {
    server = RegistryServer.start(ServerConfig.ephemeralLoopback()).block(WAIT);
  }

  @AfterEach
  void stop() {
    server.disposeNow(WAIT);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  void whatEurekasCodecWritesIsRegisteredAndReadBackAsItWasWritten(Codec codec) throws Exception {
    InstanceInfo written = InstanceInfo.Builder.newBuilder()
        .setInstanceId("inventory-1").setAppName("INVENTORY").setHostName("inventory-1.local")
        .setIPAddr("127.0.0.8").setPort(7000).enablePort(InstanceInfo.PortType.UNSECURE, true)
        .setSecurePort(7443).enablePort(InstanceInfo.PortType.SECURE, true)
        .setVIPAddress("inventory").setSecureVIPAddress("inventory-secure")
        .setHomePageUrl("/", "http://inventory-1.local:7000/").setStatusPageUrl("/info", null)
        .setHealthCheckUrls("/health", null, null)
        .setDataCenterInfo(new MyDataCenterInfo(DataCenterInfo.Name.MyOwn))
        .setLeaseInfo(LeaseInfo.Builder.newBuilder().setRenewalIntervalInSecs(10).setDurationInSecs(40).build())
        .setMetadata(Map.of("lang", "java", "zone", "z1"))
        .setStatus(InstanceInfo.InstanceStatus.UP).build();
    HttpResponse<byte[]> registered = http.send(HttpRequest.newBuilder(uri("/eureka/apps/INVENTORY"))
        .header("Content-Type", codec.mediaType())
        .POST(HttpRequest.BodyPublishers.ofByteArray(codec.encode(written))).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(registered.statusCode()).as(new String(registered.body(), StandardCharsets.UTF_8)).isEqualTo(204);

    HttpResponse<byte[]> fetched = http.send(HttpRequest.newBuilder(uri("/eureka/apps"))
        .header("Accept", codec.mediaType()).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    Applications applications = codec.decode(fetched.body(), Applications.class);
    assertThat(applications.getAppsHashCode()).isEqualTo("UP_1_").isEqualTo(applications.getReconcileHashCode());
    Application application = applications.getRegisteredApplications("INVENTORY");
    assertThat(application.getInstances()).hasSize(1);
    InstanceInfo read = application.getInstances().get(0);
    assertThat(read.getId()).isEqualTo("inventory-1");
    assertThat(read.getAppName()).isEqualTo("INVENTORY");
    assertThat(read.getHostName()).isEqualTo("inventory-1.local");
    assertThat(read.getIPAddr()).isEqualTo("127.0.0.8");
    assertThat(read.getPort()).isEqualTo(7000);
    assertThat(read.isPortEnabled(InstanceInfo.PortType.UNSECURE)).isTrue();
    assertThat(read.getSecurePort()).isEqualTo(7443);
    assertThat(read.isPortEnabled(InstanceInfo.PortType.SECURE)).isTrue();
    assertThat(read.getVIPAddress()).isEqualTo("inventory");
    assertThat(read.getSecureVipAddress()).isEqualTo("inventory-secure");
    assertThat(read.getHomePageUrl()).isEqualTo("http://inventory-1.local:7000/");
    assertThat(read.getStatusPageUrl()).isEqualTo(written.getStatusPageUrl());
    assertThat(read.getHealthCheckUrl()).isEqualTo(written.getHealthCheckUrl());
    assertThat(read.getStatus()).isEqualTo(InstanceInfo.InstanceStatus.UP);
    assertThat(read.getMetadata()).isEqualTo(Map.of("lang", "java", "zone", "z1"));
    assertThat(read.getLeaseInfo().getRenewalIntervalInSecs()).isEqualTo(10);
    assertThat(read.getLeaseInfo().getDurationInSecs()).isEqualTo(40);
    assertThat(read.getDataCenterInfo().getName()).isEqualTo(DataCenterInfo.Name.MyOwn);

    // One instance, read alone, and the application.
    HttpResponse<byte[]> one = http.send(HttpRequest.newBuilder(uri("/eureka/apps/INVENTORY/inventory-1"))
        .header("Accept", codec.mediaType()).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(codec.decode(one.body(), InstanceInfo.class).getId()).isEqualTo("inventory-1");
    HttpResponse<byte[]> app = http.send(HttpRequest.newBuilder(uri("/eureka/apps/INVENTORY"))
        .header("Accept", codec.mediaType()).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(codec.decode(app.body(), Application.class).getByInstanceId("inventory-1")).isNotNull();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.httpPort() + path);
  }
}
