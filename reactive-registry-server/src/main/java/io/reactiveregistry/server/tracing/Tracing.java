package io.reactiveregistry.server.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.reactiveregistry.server.core.TraceContext;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * Where the server's spans go: OpenTelemetry's SDK with its OTLP/HTTP exporter (protobuf, sent by
 * the JDK's HTTP client from the batch processor's own thread, never an event loop) when an
 * endpoint is set, and nothing at all when not ({@link #OFF}: no SDK is built, every request gets
 * {@link RequestSpan#NONE}).
 *
 * <p>Sampling: a caller's decision is kept (its {@code sampled} flag); a request that comes without
 * a trace context starts a trace with the probability {@link Settings#sampleRatio()}, drawn before
 * anything is built, so that a request not sampled costs one random number. A change's replication
 * to another member and its pushes are spans of the request's trace, recorded only when that
 * request's span was.
 */
public final class Tracing implements Disposable {
  /** Tracing that makes nothing: the default. */
  public static final Tracing OFF = new Tracing(null, null, "", 0);

  private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("rpc.method");
  private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("rpc.system");
  private static final AttributeKey<String> ERROR_CODE = AttributeKey.stringKey("registry.error.code");
  private static final AttributeKey<String> FROM_MEMBER = AttributeKey.stringKey("registry.replica.from");

  /**
   * @param endpoint the OTLP/HTTP traces endpoint ({@code http://collector:4318/v1/traces}); null: off
   * @param sampleRatio the share of requests without a caller's trace context that start one, 0 to 1
   */
  public record Settings(@Nullable URI endpoint, double sampleRatio) {
    public static final Settings DEFAULTS = new Settings(null, 0.1);

    public Settings {
      if (!(sampleRatio >= 0 && sampleRatio <= 1)) {
        throw new IllegalArgumentException("--trace-sample-ratio must be between 0 and 1; got " + sampleRatio);
      }
      if (endpoint != null && !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))) {
        throw new IllegalArgumentException("--otlp-endpoint must be an http:// or https:// URL (OTLP over HTTP); got "
            + endpoint);
      }
    }
  }

  private final @Nullable SdkTracerProvider provider;
  private final @Nullable Tracer tracer;
  private final String system;
  private final double sampleRatio;
  private final SpanClock clock = new SpanClock(Clock.getDefault());

  private Tracing(@Nullable SdkTracerProvider provider, @Nullable Tracer tracer, String system, double sampleRatio) {
    this.provider = provider;
    this.tracer = tracer;
    this.system = system;
    this.sampleRatio = sampleRatio;
  }

  /**
   * Tracing as {@code settings} say, for the member {@code member} (its node id, or the address of a
   * single server): the spans' resource is {@code service.name=reactive-registry},
   * {@code service.instance.id=<member>}, {@code service.version=<version>}.
   */
  public static Tracing of(Settings settings, String member, String version) {
    if (settings.endpoint() == null) {
      return OFF;
    }
    OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(settings.endpoint().toString())
        .build();
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
            AttributeKey.stringKey("service.name"), "reactive-registry",
            AttributeKey.stringKey("service.instance.id"), member,
            AttributeKey.stringKey("service.version"), version))))
        // Roots are drawn in request() before a span is built; a remote parent's flag decides the rest.
        .setSampler(Sampler.parentBased(Sampler.alwaysOn()))
        // Sent each second rather than OpenTelemetry's five: an operator following one change
        // sees it in the trace viewer at once, and a registry's request rate keeps batches small.
        .addSpanProcessor(BatchSpanProcessor.builder(exporter).setScheduleDelay(Duration.ofSeconds(1)).build())
        .build();
    return new Tracing(provider, provider.get("io.reactiveregistry.server", version), "reactive-registry",
        settings.sampleRatio());
  }

  /** Whether spans are made and exported. */
  public boolean on() {
    return tracer != null;
  }

  /**
   * The span of a request on {@code route} that started at {@code startNanos} ({@link System#nanoTime()}),
   * a child of the caller's span when it sent a trace context.
   */
  public RequestSpan request(Route route, @Nullable TraceParent caller, long startNanos) {
    Tracer spans = tracer;
    if (spans == null || caller == null && !drawn()) {
      return RequestSpan.NONE;
    }
    long epochNanos = clock.epochOf(startNanos);
    Context parent = caller == null ? Context.root() : remote(caller);
    Span span = spans.spanBuilder(route.routeName()).setParent(parent).setSpanKind(SpanKind.SERVER)
        .setStartTimestamp(epochNanos, TimeUnit.NANOSECONDS)
        .setAttribute(SYSTEM, system).setAttribute(ROUTE, route.routeName()).startSpan();
    if (!span.isRecording()) {
      return RequestSpan.NONE;
    }
    return new Recorded(spans, span, epochNanos, startNanos);
  }

  private boolean drawn() {
    return sampleRatio >= 1 || sampleRatio > 0 && ThreadLocalRandom.current().nextDouble() < sampleRatio;
  }

  /**
   * Records that a change made in {@code change} (on member {@code from}, at {@code madeAtMillis}
   * by that member's clock) was received and applied here: a {@code cluster.replicate} span from
   * then to now, its length the replication lag. Returns that span as the parent of what the
   * change does here (its pushes); null when tracing is off or the trace is not sampled.
   */
  public @Nullable TraceContext replicated(TraceContext change, String from, long madeAtMillis) {
    Tracer spans = tracer;
    if (spans == null || !change.sampled()) {
      return null;
    }
    long now = clock.now();
    // Another member's clock: never let its skew start the span after it ends.
    long start = Math.min(now, TimeUnit.MILLISECONDS.toNanos(madeAtMillis));
    Span span = spans.spanBuilder(Route.CLUSTER_REPLICATE.routeName()).setParent(remote(change))
        .setSpanKind(SpanKind.CONSUMER).setStartTimestamp(start, TimeUnit.NANOSECONDS)
        .setAttribute(FROM_MEMBER, from).startSpan();
    span.end(now, TimeUnit.NANOSECONDS);
    return span.getSpanContext().isSampled() ? parentOf(span) : null;
  }

  /**
   * Opens a {@code raft.apply} span (CONSUMER) around applying here a durable change that another
   * member committed in a traced request: a child of that request's span, and the parent of what
   * the change does here (its events, its pushes). Null when tracing is off here or the trace is
   * not sampled: the change is then applied in the request's own context.
   */
  public @Nullable Applying applying(TraceContext change) {
    Tracer spans = tracer;
    if (spans == null || !change.sampled()) {
      return null;
    }
    Span span = spans.spanBuilder("raft.apply").setParent(remote(change)).setSpanKind(SpanKind.CONSUMER).startSpan();
    return span.getSpanContext().isSampled() ? new Applying(span) : null;
  }

  /** A {@code raft.apply} span, open while its change is applied. */
  public static final class Applying {
    private final Span span;

    private Applying(Span span) {
      this.span = span;
    }

    /** The context the change is applied in. */
    public TraceContext context() {
      return parentOf(span);
    }

    public void end() {
      span.end();
    }
  }

  /**
   * Records a change's push to one subscriber: a {@code push} span from when the change became an
   * event ({@code createdAtNanos}, {@link System#nanoTime()}) to now, when its frame is handed to
   * the subscriber's connection.
   */
  public void pushed(TraceContext change, long createdAtNanos) {
    Tracer spans = tracer;
    if (spans == null || !change.sampled()) {
      return;
    }
    long now = clock.now();
    spans.spanBuilder("push").setParent(remote(change)).setSpanKind(SpanKind.PRODUCER)
        .setStartTimestamp(clock.epochOf(createdAtNanos), TimeUnit.NANOSECONDS)
        .startSpan().end(now, TimeUnit.NANOSECONDS);
  }

  private static Context remote(TraceParent caller) {
    return remote(caller.traceId(), caller.parentId(), caller.sampled());
  }

  private static Context remote(TraceContext parent) {
    return remote(parent.traceId(), parent.spanId(), parent.sampled());
  }

  private static Context remote(String traceId, String spanId, boolean sampled) {
    return Context.root().with(Span.wrap(SpanContext.createFromRemoteParent(traceId, spanId,
        sampled ? TraceFlags.getSampled() : TraceFlags.getDefault(), TraceState.getDefault())));
  }

  private static TraceContext parentOf(Span span) {
    SpanContext context = span.getSpanContext();
    return new TraceContext(context.getTraceId(), context.getSpanId(), context.isSampled());
  }

  /** Flushes what is queued and stops exporting; does not wait for the collector. */
  @Override
  public void dispose() {
    if (provider != null) {
      provider.shutdown();
    }
  }

  @Override
  public boolean isDisposed() {
    return provider == null;
  }

  /** A sampled request's span; its stages are its children, timed from the same readings. */
  private static final class Recorded implements RequestSpan {
    private final Tracer tracer;
    private final Span span;
    private final long startEpochNanos;
    private final long startNanos;

    Recorded(Tracer tracer, Span span, long startEpochNanos, long startNanos) {
      this.tracer = tracer;
      this.span = span;
      this.startEpochNanos = startEpochNanos;
      this.startNanos = startNanos;
    }

    private long epoch(long nanos) {
      return startEpochNanos + (nanos - startNanos);
    }

    @Override
    public void stage(String name, long start, long end) {
      tracer.spanBuilder(name).setParent(Context.root().with(span)).setSpanKind(SpanKind.INTERNAL)
          .setStartTimestamp(epoch(start), TimeUnit.NANOSECONDS).startSpan()
          .end(epoch(end), TimeUnit.NANOSECONDS);
    }

    @Override
    public void end(@Nullable ErrorCode refusedWith) {
      if (refusedWith != null) {
        span.setAttribute(ERROR_CODE, refusedWith.name());
        span.setStatus(StatusCode.ERROR, refusedWith.name());
      }
      span.end(epoch(System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    @Override
    public TraceContext context() {
      return parentOf(span);
    }
  }
}
