package io.reactiveregistry.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import io.reactiveregistry.client.RegistryClient;
import io.reactiveregistry.client.ServiceName;
import io.reactiveregistry.server.RegistryServer;
import io.reactiveregistry.server.ServerConfig;
import io.reactiveregistry.server.e2e.OtlpCollector;
import io.reactiveregistry.server.tracing.Tracing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The starter puts the application's requests in its current trace: inside a span of the
 * application's Micrometer Tracing {@link Tracer}, a query made with the starter's client reaches
 * a server exporting spans as a child of that span (a real OTLP collector socket receives it);
 * outside any span, it is in no trace of the application's.
 */
class TracePropagationTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void aQueryInsideTheApplicationsSpanIsItsChildOnTheServer() {
    try (OtlpCollector collector = new OtlpCollector()) {
      RegistryServer server = RegistryServer.start(ServerConfig.ephemeralLoopback()
          .withTracing(new Tracing.Settings(collector.endpoint(), 0))).block(WAIT);
      ConfigurableApplicationContext app = TestApps.start(Traced.class, "traced", server.tcpPort());
      try {
        Tracer tracer = app.getBean(Tracer.class);
        RegistryClient client = app.getBean(RegistryClient.class);
        SimpleSpan span = (SimpleSpan) tracer.nextSpan().name("checkout").start();
        span.context().setSampled(true); // the in-memory tracer samples nothing by itself
        String traceId;
        try (Tracer.SpanInScope scope = tracer.withSpan(span)) {
          traceId = w3c(span.context().traceId());
          client.query(ServiceName.of("orders")).block(WAIT);
        } finally {
          span.end();
        }
        client.query(ServiceName.of("orders")).block(WAIT); // outside the span: not traced (ratio 0)
        // A span the application does not sample is not recorded by the server either.
        SimpleSpan unsampled = (SimpleSpan) tracer.nextSpan().name("unsampled").start();
        try (Tracer.SpanInScope scope = tracer.withSpan(unsampled)) {
          client.query(ServiceName.of("orders")).block(WAIT);
        } finally {
          unsampled.end();
        }

        await().atMost(WAIT).until(() -> !collector.trace(traceId).isEmpty());
        List<OtlpCollector.Received> traced = collector.trace(traceId);
        assertThat(traced).filteredOn(received -> received.name().equals("service.query")).singleElement()
            .satisfies(query -> assertThat(query.parentId()).isEqualTo(span.context().spanId()));
        // A last query in a sampled span, once received, shows that nothing came of the two between.
        SimpleSpan marker = (SimpleSpan) tracer.nextSpan().name("marker").start();
        marker.context().setSampled(true);
        try (Tracer.SpanInScope scope = tracer.withSpan(marker)) {
          client.query(ServiceName.of("orders")).block(WAIT);
        } finally {
          marker.end();
        }
        await().atMost(WAIT).until(() -> !collector.trace(w3c(marker.context().traceId())).isEmpty());
        assertThat(collector.spans()).filteredOn(received -> received.name().equals("service.query")).hasSize(2);
      } finally {
        app.close();
        server.disposeNow(WAIT);
      }
    }
  }

  /** An application with a tracer of its own (Micrometer Tracing's in-memory one). */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Traced {
    @Bean
    Tracer tracer() {
      return new SimpleTracer();
    }
  }

  /** A trace id as W3C writes it: a 64-bit one left-padded to 32 hex digits. */
  private static String w3c(String traceId) {
    return traceId.length() == 16 ? "0000000000000000" + traceId : traceId;
  }
}
