package io.reactiveregistry.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.io.ByteArrayOutputStream;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

/** A request's body, read whole but never beyond a bound: a client cannot make the server hold more. */
public final class RequestBodies {
  private RequestBodies() {}

  public static Mono<byte[]> read(HttpServerRequest request, int maxBytes) {
    String declared = request.requestHeaders().get(HttpHeaderNames.CONTENT_LENGTH);
    if (declared != null && declared.chars().allMatch(Character::isDigit) && declared.length() < 12
        && Long.parseLong(declared) > maxBytes) {
      return Mono.error(tooLarge(maxBytes));
    }
    return request.receive().asByteArray()
        .collect(ByteArrayOutputStream::new, (body, chunk) -> {
          if (body.size() + chunk.length > maxBytes) {
            throw tooLarge(maxBytes);
          }
          body.writeBytes(chunk);
        })
        .map(ByteArrayOutputStream::toByteArray);
  }

  private static EdgeRefusal tooLarge(int maxBytes) {
    return new EdgeRefusal(ErrorCode.LIMIT_EXCEEDED, "the request body is larger than " + maxBytes + " bytes");
  }
}
