package io.reactiveregistry.server.eureka;

import io.reactiveregistry.protocol.message.InstanceBody;
import io.reactiveregistry.protocol.message.ServiceSnapshot;
import io.reactiveregistry.server.eureka.EurekaDoor.Reply;
import io.reactiveregistry.server.eureka.EurekaTree.Format;
import io.reactiveregistry.server.request.Catalog;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The full fetch and the delta, put together from each service's instances rendered once: a
 * service's rendering is kept while its snapshot is the same (the catalog hands out the same
 * snapshot until the service changes), so after a change only that service is rendered again, and
 * the document is a concatenation; so is its gzip, each service's part compressed once and
 * spliced ({@link SplicedGzip}: compressing the whole document anew was most of a fetch after a
 * change). A whole document is also kept until the catalog's revision moves, or for the delta
 * until its changes do (the window also drops old ones without a new revision): every Eureka
 * client polls the same documents, so the second and later polls of a state cost a lookup.
 */
final class Renderings {
  private record Key(long revision, int changes, Format format) {}

  private record Kept(Key key, Reply reply) {}

  /**
   * A service's instances rendered in one format, by instance id, and how many of each Eureka
   * status; and, once a full fetch needed it, all of them as they stand in that document, with
   * their compression (see {@link SplicedGzip}).
   */
  private record Fragments(ServiceSnapshot snapshot, Map<String, byte[]> instances, Map<String, Integer> statuses,
      AtomicReference<@Nullable Segment> segment) {
    Segment segment(Format format) {
      Segment made = segment.get();
      if (made == null) {
        made = Segment.of(instances.values(), format);
        segment.set(made);
      }
      return made;
    }
  }

  /** A run of instances in a document (a service's in the full one, an application's changes in the delta), plain and compressed alone. */
  private record Segment(byte[] plain, byte[] deflated) {
    /** The instances as they stand in the document, one after another (comma-separated in JSON). */
    static Segment of(Iterable<byte[]> instances, Format format) {
      ByteArrayOutputStream joined = new ByteArrayOutputStream(1024);
      boolean first = true;
      for (byte[] instance : instances) {
        if (format == Format.JSON && !first) {
          joined.write(',');
        }
        joined.writeBytes(instance);
        first = false;
      }
      byte[] plain = joined.toByteArray();
      return new Segment(plain, SplicedGzip.compress(plain));
    }
  }

  private final AtomicReference<@Nullable Kept> fullJson = new AtomicReference<>();
  private final AtomicReference<@Nullable Kept> fullXml = new AtomicReference<>();
  private final AtomicReference<@Nullable Kept> deltaJson = new AtomicReference<>();
  private final AtomicReference<@Nullable Kept> deltaXml = new AtomicReference<>();
  private final Map<String, Fragments> fragments = new ConcurrentHashMap<>();
  /** Each application's part of the last delta, by format. */
  private final Map<Format, Map<String, DeltaSegment>> deltaSegments = Map.of(
      Format.JSON, new ConcurrentHashMap<>(), Format.XML, new ConcurrentHashMap<>());
  /**
   * Removed instances rendered with their {@code DELETED} action, by the body the recent changes
   * keep (the same object while the removal stays in the window).
   */
  private final Map<Format, Map<InstanceBody, byte[]>> deleted = Map.of(
      Format.JSON, Collections.synchronizedMap(new IdentityHashMap<>()),
      Format.XML, Collections.synchronizedMap(new IdentityHashMap<>()));

  /** The full document of {@code catalog}'s revision when it is rendered already, else null. */
  @Nullable Reply keptFull(Catalog catalog, Format format) {
    Kept kept = (format == Format.JSON ? fullJson : fullXml).get();
    return kept != null && kept.key().equals(new Key(catalog.revision(), -1, format)) ? kept.reply() : null;
  }

  Reply full(Catalog catalog, Format format) {
    Key key = new Key(catalog.revision(), -1, format);
    return kept(format == Format.JSON ? fullJson : fullXml, key, () -> {
      Map<String, List<Segment>> byApp = new TreeMap<>();
      Map<String, Integer> statuses = new TreeMap<>();
      Set<String> current = new HashSet<>();
      for (ServiceSnapshot service : catalog.services()) {
        current.add(key(service.service(), format));
        Fragments rendered = fragments(service, format);
        if (!rendered.instances().isEmpty()) {
          byApp.computeIfAbsent(EurekaViews.app(service.service()), app -> new ArrayList<>())
              .add(rendered.segment(format));
        }
        rendered.statuses().forEach((status, count) -> statuses.merge(status, count, Integer::sum));
      }
      // Services gone since: their renderings go too.
      fragments.keySet().removeIf(name -> name.startsWith(format.name() + '\u0000') && !current.contains(name));
      return document(catalog.revision(), hash(statuses), byApp, format);
    });
  }

  /**
   * An {@code applications} document, the whole registry or the delta: each application's
   * segments (its services' instances, or its changes), plain and compressed once (spliced into
   * the gzipped document as they are), the text around them written anew. The plain document is
   * put together only when a caller asks for it (Eureka's clients ask for gzip), in one array of
   * its exact size, each piece copied into it once: copying it was the largest part of a fetch
   * after a change once the gzip was spliced. Application names are service names in upper case:
   * letters, digits and {@code -_.:@}, safe in JSON and XML as they are.
   */
  private static Reply document(long revision, String hash, Map<String, List<Segment>> byApp, Format format) {
    boolean json = format == Format.JSON;
    Pieces pieces = new Pieces(4 * byApp.size() + 2);
    pieces.text(opening(revision, hash, format));
    boolean firstApp = true;
    for (Map.Entry<String, List<Segment>> app : byApp.entrySet()) {
      pieces.text(appOpening(app.getKey(), firstApp, format));
      boolean firstSegment = true;
      for (Segment segment : app.getValue()) {
        if (json && !firstSegment) {
          pieces.text(",");
        }
        pieces.segment(segment);
        firstSegment = false;
      }
      pieces.text(json ? "]}" : "</application>");
      firstApp = false;
    }
    pieces.text(json ? "]}}" : "</applications>");
    int length = pieces.length;
    List<byte[]> plain = pieces.plain;
    return new Reply(200, Rendered.of(length, () -> concatenated(plain, length), pieces.gzipped.finish(),
        format.contentType), null);
  }

  /** The document's pieces as they come: kept for its plain bytes, compressed or spliced into its gzip. */
  private static final class Pieces {
    final List<byte[]> plain;
    final SplicedGzip gzipped = new SplicedGzip(64 * 1024);
    int length;

    Pieces(int expected) {
      plain = new ArrayList<>(expected);
    }

    void text(String text) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      add(bytes);
      gzipped.add(bytes);
    }

    void segment(Segment segment) {
      add(segment.plain());
      gzipped.splice(segment.plain(), segment.deflated());
    }

    private void add(byte[] bytes) {
      plain.add(bytes);
      length += bytes.length;
    }
  }

  /** The pieces in one array of their exact size, each copied once. */
  private static byte[] concatenated(List<byte[]> pieces, int length) {
    byte[] plain = new byte[length];
    int at = 0;
    for (byte[] piece : pieces) {
      System.arraycopy(piece, 0, plain, at, piece.length);
      at += piece.length;
    }
    return plain;
  }

  private static String opening(long revision, String hash, Format format) {
    return format == Format.JSON ? "{\"applications\":{\"versions__delta\":\"" + revision + "\",\"apps__hashcode\":\""
        + hash + "\",\"application\":[" : "<?xml version=\"1.0\" encoding=\"UTF-8\"?><applications><versions__delta>"
        + revision + "</versions__delta><apps__hashcode>" + hash + "</apps__hashcode>";
  }

  private static String appOpening(String app, boolean first, Format format) {
    return format == Format.JSON ? (first ? "" : ",") + "{\"name\":\"" + app + "\",\"instance\":["
        : "<application><name>" + app + "</name>";
  }

  Reply delta(Catalog.Delta changes, Format format) {
    Key key = new Key(changes.catalog().revision(), changes.changes().size(), format);
    return kept(format == Format.JSON ? deltaJson : deltaXml, key, () -> {
      // Each service's renderings, looked up once here, not once for each of its changes below.
      Map<String, Fragments> services = new HashMap<>();
      Map<String, Integer> statuses = new TreeMap<>();
      for (ServiceSnapshot service : changes.catalog().services()) {
        Fragments rendered = fragments(service, format);
        services.put(service.service(), rendered);
        rendered.statuses().forEach((status, count) -> statuses.merge(status, count, Integer::sum));
      }
      Map<String, List<Change>> byApp = new TreeMap<>();
      Map<InstanceBody, byte[]> removals = deleted.get(format);
      if (removals.size() > 2 * changes.changes().size() + 1_000) {
        removals.clear(); // what has left the window is not asked for again
      }
      for (Catalog.Change change : changes.changes()) {
        Fragments service = services.get(change.service());
        byte[] rendered = change.kind() == Catalog.ChangeKind.DELETED || service == null ? null
            : service.instances().get(change.instance().instanceId());
        Change piece;
        if (rendered != null) {
          piece = new Change(rendered, change.kind());
        } else if (change.kind() == Catalog.ChangeKind.DELETED) {
          piece = new Change(removals.computeIfAbsent(change.instance(), body -> EurekaTree.fragment("instance",
              EurekaViews.instance(change.service(), body, change.kind()), format)), null);
        } else {
          piece = new Change(EurekaTree.fragment("instance", EurekaViews.instance(change.service(), change.instance(),
              change.kind()), format), null);
        }
        byApp.computeIfAbsent(EurekaViews.app(change.service()), app -> new ArrayList<>()).add(piece);
      }
      Map<String, DeltaSegment> segments = deltaSegments.get(format);
      segments.keySet().retainAll(byApp.keySet()); // applications without changes now: their segments go
      Map<String, List<Segment>> byAppSegment = new TreeMap<>();
      byApp.forEach((app, pieces) -> {
        DeltaSegment known = segments.get(app);
        if (known == null || !known.changes().equals(pieces)) {
          known = new DeltaSegment(pieces, Segment.of(pieces.stream().map(piece -> piece.bytes(format)).toList(),
              format));
          segments.put(app, known);
        }
        byAppSegment.put(app, List.of(known.segment()));
      });
      return document(changes.catalog().revision(), hash(statuses), byAppSegment, format);
    });
  }

  /**
   * One change of the delta as it is rendered: an instance's rendering (the one the full fetch
   * uses, kept while its service is unchanged) and the action to add to it, or a rendering that
   * carries its action already ({@code action} null). Equal only to the same rendering with the
   * same action (arrays compare by identity): an application whose changes are all equal to those
   * of the last delta is compressed again no more.
   */
  private record Change(byte[] rendering, Catalog.@Nullable ChangeKind action) {
    byte[] bytes(Format format) {
      return action == null ? rendering : withAction(rendering, action, format);
    }
  }

  /** An application's changes in the last delta, and their part of the document, plain and compressed alone. */
  private record DeltaSegment(List<Change> changes, Segment segment) {}

  /** The service's renderings, made again only when its snapshot is another than the one they were made from. */
  private Fragments fragments(ServiceSnapshot service, Format format) {
    String key = key(service.service(), format);
    Fragments known = fragments.get(key);
    if (known != null && known.snapshot() == service) {
      return known;
    }
    Map<String, byte[]> instances = new LinkedHashMap<>();
    Map<String, Integer> statuses = new TreeMap<>();
    for (InstanceBody instance : service.instances()) {
      instances.put(instance.instanceId(), EurekaTree.fragment("instance",
          EurekaViews.instance(service.service(), instance, null), format));
      statuses.merge(EurekaViews.status(instance), 1, Integer::sum);
    }
    Fragments made = new Fragments(service, instances, statuses, new AtomicReference<>());
    fragments.put(key, made);
    return made;
  }

  private static String key(String service, Format format) {
    return format.name() + '\u0000' + service;
  }

  /** Eureka's reconcile hash from counts by status: {@code DOWN_1_UP_3_}. */
  private static String hash(Map<String, Integer> statuses) {
    StringBuilder hash = new StringBuilder();
    statuses.forEach((status, count) -> hash.append(status).append('_').append(count).append('_'));
    return hash.toString();
  }

  /** A rendered instance with its delta's {@code actionType} added as its last field. */
  private static byte[] withAction(byte[] rendered, Catalog.ChangeKind kind, Format format) {
    String closing = format == Format.JSON ? "}" : "</instance>";
    String action = format == Format.JSON ? ",\"actionType\":\"" + kind + "\"}"
        : "<actionType>" + kind + "</actionType></instance>";
    byte[] tail = action.getBytes(StandardCharsets.UTF_8);
    int keep = rendered.length - closing.length();
    byte[] withAction = new byte[keep + tail.length];
    System.arraycopy(rendered, 0, withAction, 0, keep);
    System.arraycopy(tail, 0, withAction, keep, tail.length);
    return withAction;
  }

  /**
   * The document kept in {@code slot} when it is {@code key}'s, else rendered and kept there; the
   * document it replaces gives back its copy in direct memory (see {@link Rendered}).
   */
  private static Reply kept(AtomicReference<@Nullable Kept> slot, Key key, Supplier<Reply> render) {
    Kept kept = slot.get();
    if (kept != null && kept.key().equals(key)) {
      return kept.reply();
    }
    Reply reply = render.get();
    if (reply.body() != null) {
      reply.body().sendFromDirectMemory();
    }
    Kept replaced = slot.getAndSet(new Kept(key, reply));
    if (replaced != null && replaced.reply().body() != null) {
      replaced.reply().body().release();
    }
    return reply;
  }

  static boolean acceptsGzip(@Nullable String acceptEncoding) {
    return acceptEncoding != null && acceptEncoding.toLowerCase(Locale.ROOT).contains("gzip");
  }
}
