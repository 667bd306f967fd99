package io.reactiveregistry.server.transport;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.Interaction;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.reactiveregistry.server.errors.EdgeRefusal;
import io.rsocket.Payload;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Reads the one route tag of a request and checks that it was called with the right interaction. */
final class RouteResolver {
  private static final String ROUTE_LIST =
      Arrays.stream(Route.values()).map(Route::routeName).collect(Collectors.joining(", "));

  private RouteResolver() {}

  static Route resolve(Payload payload, Interaction used) {
    List<String> tags = RouteMetadata.routes(payload.hasMetadata() ? payload.sliceMetadata() : null);
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
    return route;
  }
}
