package io.reactiveregistry.server.nacos;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.server.errors.WireError;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Nacos's JSON, as its clients read and write it (absent fields left out, unknown ones ignored), and
 * its answers: a typed response with {@code resultCode} 200, or an {@code ErrorResponse} whose
 * {@code errorCode} is Nacos's code for the refusal and whose message is the registry's.
 */
final class NacosJson {
  static final ObjectMapper MAPPER = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .serializationInclusion(JsonInclude.Include.NON_NULL)
      .build();
  /**
   * Readers made once: an {@code ObjectReader} finds its deserializer when it is made, where
   * {@code ObjectMapper.readValue} finds it on first use behind a lock, which the first requests,
   * arriving at once on several event loops, waited on.
   */
  private static final ObjectReader MESSAGE = MAPPER.readerFor(NacosMessage.class);
  static final ObjectReader MAP = MAPPER.readerFor(Map.class);

  // Nacos's error codes (NacosException), those this door answers with.
  static final int INVALID_PARAM = 400;
  static final int NO_RIGHT = 403;
  static final int NOT_FOUND = 404;
  static final int CONFLICT = 409;
  static final int SERVER_ERROR = 500;
  static final int BAD_GATEWAY = 502;
  static final int OVER_THRESHOLD = 503;
  static final int UN_REGISTER = 301;
  static final int NO_HANDLER = 302;

  private NacosJson() {}

  static NacosMessage read(byte[] json) throws IOException {
    return MESSAGE.readValue(json);
  }

  /** What is wrong with a body that could not be read, without Jackson's location noise. */
  static String problem(IOException e) {
    return e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
  }

  static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A successful response of {@code type}, with its own fields. */
  static Payload ok(String type, @Nullable String requestId, Map<String, ?> fields) {
    Map<String, Object> body = new LinkedHashMap<>(fields);
    body.put("resultCode", 200);
    body.put("errorCode", 0);
    if (requestId != null) {
      body.put("requestId", requestId);
    }
    return Payload.of(type, write(body));
  }

  static Payload ok(String type, @Nullable String requestId) {
    return ok(type, requestId, Map.of());
  }

  /** A request of the server's to a client (a push, its abilities, a reset), under the connection's next id. */
  static Payload serverRequest(String type, String requestId, Map<String, ?> fields) {
    Map<String, Object> body = new LinkedHashMap<>(fields);
    body.put("requestId", requestId);
    return Payload.of(type, write(body));
  }

  /** Nacos's {@code ErrorResponse}: what its client turns into a {@code NacosException(errorCode, message)}. */
  static Payload error(int errorCode, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("resultCode", 500);
    body.put("errorCode", errorCode);
    body.put("message", message);
    return Payload.of("ErrorResponse", write(body));
  }

  /** A refusal of the request layer, as an {@code ErrorResponse}. */
  static Payload error(WireError refusal) {
    return error(code(refusal.code()), refusal.message());
  }

  /**
   * Nacos's code for the registry's: a client that is told 403 logs in again, so both missing and
   * insufficient credentials are 403, as in Nacos.
   */
  static int code(ErrorCode code) {
    return switch (code) {
      case INVALID_PARAM, SERVICE_TYPE_MISMATCH, SERVICE_NOT_EMPTY -> INVALID_PARAM;
      case NOT_FOUND -> NOT_FOUND;
      case ALREADY_EXISTS -> CONFLICT;
      case FORBIDDEN, UNAUTHENTICATED -> NO_RIGHT;
      case LIMIT_EXCEEDED -> OVER_THRESHOLD;
      case UNKNOWN_ROUTE -> NO_HANDLER;
      default -> SERVER_ERROR;
    };
  }
}
