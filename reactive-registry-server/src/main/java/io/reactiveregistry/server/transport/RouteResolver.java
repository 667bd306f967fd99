package io.reactiveregistry.server.transport;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.RequestMetadata;
import io.reactiveregistry.protocol.trace.TraceParent;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.rsocket.Payload;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** Reads the one route tag of a request and checks that it was called with the right interaction. */
final class RouteResolver {
  private static final String ROUTE_LIST =
      Arrays.stream(Route.values()).map(Route::routeName).collect(Collectors.joining(", "));

  private RouteResolver() {}

  /** A request's route, the bearer token its metadata carries (null for none) and the caller's trace context. */
  record Resolved(Route route, @Nullable String bearer, @Nullable TraceParent trace) {}

  static Route resolve(Payload payload, Interaction used) {
    return resolveWithToken(payload, used).route();
  }

  /** The route and the bearer token, from one reading of the metadata. */
  static Resolved resolveWithToken(Payload payload, Interaction used) {
    RequestMetadata metadata = RequestMetadata.read(payload.hasMetadata() ? payload.sliceMetadata() : null);
    List<String> tags = metadata.routes();
    if (tags.size() != 1) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "a request must carry exactly one route tag in "
          + Protocol.ROUTING_MIME_TYPE + " inside " + Protocol.METADATA_MIME_TYPE + " metadata; found "
          + tags.size());
    }
    String name = tags.get(0);
    Route route = Route.byName(name).orElseThrow(() -> new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE,
        "unknown route '" + name + "'; the routes are: " + ROUTE_LIST));
    if (route.interaction() != used) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "route '" + name + "' is "
          + route.interaction().wireName() + "; it was called as " + used.wireName());
    }
    return new Resolved(route, metadata.bearer(), metadata.trace());
  }
}
