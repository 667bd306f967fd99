package io.reactiveregistry.server.eureka;

import io.reactiveregistry.server.eureka.EurekaDoor.Reply;
import io.reactiveregistry.server.eureka.EurekaTree.Format;
import io.reactiveregistry.server.request.Catalog;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The full fetch and the delta, rendered once per state of the catalog and format: every Eureka
 * client polls the same documents (every 30 s by default), so the second and later polls of a
 * state cost a lookup. A rendering is kept until the catalog's revision moves, or for the delta,
 * until its changes do (the window also drops old ones without a new revision).
 */
final class Renderings {
  private record Key(long revision, int changes, Format format) {}

  private record Kept(Key key, Reply reply) {}

  private final AtomicReference<@Nullable Kept> fullJson = new AtomicReference<>();
  private final AtomicReference<@Nullable Kept> fullXml = new AtomicReference<>();
  private final AtomicReference<@Nullable Kept> deltaJson = new AtomicReference<>();
  private final AtomicReference<@Nullable Kept> deltaXml = new AtomicReference<>();

  Reply full(Catalog catalog, Format format) {
    Key key = new Key(catalog.revision(), -1, format);
    return kept(format == Format.JSON ? fullJson : fullXml, key,
        () -> Reply.document("applications", EurekaViews.applications(catalog, instance -> true), format));
  }

  Reply delta(Catalog.Delta changes, Format format) {
    Key key = new Key(changes.catalog().revision(), changes.changes().size(), format);
    return kept(format == Format.JSON ? deltaJson : deltaXml, key,
        () -> Reply.document("applications", EurekaViews.delta(changes), format));
  }

  private static Reply kept(AtomicReference<@Nullable Kept> slot, Key key, java.util.function.Supplier<Reply> render) {
    Kept kept = slot.get();
    if (kept != null && kept.key().equals(key)) {
      return kept.reply();
    }
    Reply reply = render.get();
    slot.set(new Kept(key, reply));
    return reply;
  }

  static boolean acceptsGzip(@Nullable String acceptEncoding) {
    return acceptEncoding != null && acceptEncoding.toLowerCase(Locale.ROOT).contains("gzip");
  }
}
