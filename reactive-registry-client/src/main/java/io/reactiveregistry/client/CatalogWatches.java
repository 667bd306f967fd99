package io.reactiveregistry.client;

import io.reactiveregistry.client.ConnectionManager.Link;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.CatalogQuery;
import io.reactiveregistry.protocol.message.ServiceSummary;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * Watched catalogs ({@code catalog.subscribe}): complete views of a namespace's services, folded
 * from the server's events. On every new connection the catalog is subscribed again, resuming
 * after the last revision applied (the server sends only the services that changed meanwhile, or
 * a fresh snapshot); while disconnected the last view is repeated, flagged stale. As with service
 * views, a refused first subscription ends the watch, and a refused re-subscription is retried
 * with the reconnect backoff.
 */
final class CatalogWatches {
  private final ConnectionManager connections;
  private final Duration minBackoff;
  private final Duration maxBackoff;

  CatalogWatches(ConnectionManager connections, Duration minBackoff, Duration maxBackoff) {
    this.connections = connections;
    this.minBackoff = minBackoff;
    this.maxBackoff = maxBackoff;
  }

  Flux<CatalogView> watch(String namespace, @Nullable String group, @Nullable String prefix) {
    return Flux.defer(() -> {
      Fold fold = new Fold(namespace);
      AtomicReference<CatalogView> last = new AtomicReference<>();
      return connections.links().switchMap(link -> {
        CatalogView seen = last.get();
        if (link.isEmpty()) {
          return seen == null ? Flux.<CatalogView>never() : Flux.just(seen.asStale()).concatWith(Flux.never());
        }
        Flux<CatalogEvent> events = Flux.defer(() -> stream(link.get(), fold.query(group, prefix)));
        if (seen != null) {
          events = events.retryWhen(Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).jitter(0.5)
              .filter(error -> !(error instanceof RegistryErrorException refusal
                  && refusal.code() == ErrorCode.NOT_FOUND)));
        }
        // Views as fast as they are taken: during a burst, intermediate ones are skipped.
        return events.filter(fold::apply).onBackpressureLatest().publishOn(Schedulers.parallel(), 1)
            .map(applied -> fold.view());
      }).doOnNext(last::set);
    });
  }

  private static Flux<CatalogEvent> stream(Link link, CatalogQuery query) {
    return link.socket().requestStream(Wire.payload(Route.CATALOG_SUBSCRIBE.routeName(), query))
        .map(payload -> Wire.decode(payload, CatalogEvent.class))
        // A refusal ends the stream with a typed error; a lost connection waits for the next one.
        .onErrorResume(error -> Wire.isRefusal(error) ? Flux.error(Wire.translate(error)) : Flux.never())
        .concatWith(Flux.never());
  }

  /** One watch's services, folded from its events across connections; applied and read under its lock. */
  private static final class Fold {
    private final String namespace;
    private final Map<String, ServiceSummary> services = new HashMap<>();
    private boolean snapshotSeen;
    private long revision;
    private @Nullable String node;

    Fold(String namespace) {
      this.namespace = namespace;
    }

    /** The subscription: resuming after the last revision applied, once a snapshot was seen. */
    synchronized CatalogQuery query(@Nullable String group, @Nullable String prefix) {
      CatalogQuery fresh = new CatalogQuery(namespace, group, prefix);
      return snapshotSeen && node != null ? fresh.resumingAfter(revision, node) : fresh;
    }

    /** Applies an event; true when there is a view to show. */
    synchronized boolean apply(CatalogEvent event) {
      switch (event.type()) {
        case CatalogEvent.SNAPSHOT -> {
          services.clear();
          for (ServiceSummary service : event.services()) {
            services.put(key(service.group(), service.service()), service);
          }
          snapshotSeen = true;
          node = event.node();
        }
        case CatalogEvent.UPSERT -> services.put(key(event.service().group(), event.service().service()),
            event.service());
        case CatalogEvent.REMOVE -> services.remove(key(event.group(), event.name()));
        case CatalogEvent.RESUMED -> {
          // What was missed follows.
        }
        default -> {
          return false; // a type added by a newer server
        }
      }
      revision = event.revision();
      return snapshotSeen;
    }

    synchronized CatalogView view() {
      return new CatalogView(namespace, revision, services.values().stream()
          .sorted(Comparator.comparing(ServiceSummary::group).thenComparing(ServiceSummary::service)).toList(), false);
    }

    private static String key(String group, String service) {
      return group + '\u0000' + service;
    }
  }
}
