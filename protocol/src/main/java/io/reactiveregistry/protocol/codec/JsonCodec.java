package io.reactiveregistry.protocol.codec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The contract's JSON codec. Decoding is strict about types (a string is not a port) and lenient
 * about unknown fields (they are ignored, as the contract promises); encoding leaves out null
 * fields. Thread-safe; share one instance.
 */
public final class JsonCodec {
  private static final JsonCodec DEFAULT = new JsonCodec();

  private final ObjectMapper mapper;
  private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

  private JsonCodec() {
    this.mapper = JsonMapper.builder()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION.mappedFeature())
        .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .serializationInclusion(JsonInclude.Include.NON_NULL)
        .build();
  }

  public static JsonCodec json() {
    return DEFAULT;
  }

  public byte[] encode(Object value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      // Only our own records are encoded: a failure here is a programming error.
      throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  public String encodeToString(Object value) {
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  /**
   * Decodes a request body. An empty body decodes as {@code {}}: every field absent.
   *
   * @throws MalformedBodyException naming the line, column or field that is wrong
   */
  public <T> T decode(ByteBuf data, Class<T> type) {
    if (!data.isReadable()) {
      return decode(new byte[] {'{', '}'}, type);
    }
    try (InputStream in = new ByteBufInputStream(data.duplicate())) {
      return read(type, in);
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  public <T> T decode(byte[] data, Class<T> type) {
    try {
      T value = reader(type).readValue(data.length == 0 ? new byte[] {'{', '}'} : data);
      if (value == null) {
        throw new MalformedBodyException("the body must be a JSON object, not null");
      }
      return value;
    } catch (IOException e) {
      throw malformed(e);
    }
  }

  public <T> T decode(String data, Class<T> type) {
    return decode(data.getBytes(java.nio.charset.StandardCharsets.UTF_8), type);
  }

  private <T> T read(Class<T> type, InputStream in) throws IOException {
    T value = reader(type).readValue(in);
    if (value == null) {
      throw new MalformedBodyException("the body must be a JSON object, not null");
    }
    return value;
  }

  /**
   * Builds the readers and writers of these types now. Jackson builds them on first use under a
   * lock; a server prepares its message types at start so that two event loops meeting a type for
   * the first time at once never wait on each other.
   */
  public void prepare(Class<?>... types) {
    for (Class<?> type : types) {
      reader(type);
      mapper.writerFor(type);
    }
  }

  private ObjectReader reader(Class<?> type) {
    return readers.computeIfAbsent(type, mapper::readerFor);
  }

  private static MalformedBodyException malformed(IOException e) {
    if (e instanceof MismatchedInputException mismatch) {
      if (mismatch.getPath().isEmpty()) {
        return new MalformedBodyException("the body must be a JSON object");
      }
      return new MalformedBodyException("field '" + path(mismatch) + "' has the wrong type: expected "
          + expected(mismatch.getTargetType()));
    }
    if (e instanceof JsonMappingException mapping && mapping.getCause() instanceof MalformedBodyException inner) {
      return inner;
    }
    if (e instanceof JsonProcessingException processing) {
      JsonLocation at = processing.getLocation();
      String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      return new MalformedBodyException("malformed JSON" + where + ": " + firstSentence(processing.getOriginalMessage()));
    }
    throw new UncheckedIOException(e);
  }

  /** Jackson's own wording, without the parts that describe its internals. */
  private static String firstSentence(String message) {
    String text = message == null ? "" : message;
    int cut = text.length();
    for (String marker : new String[] {"\n", " at [Source", " (for ", " (start marker"}) {
      int at = text.indexOf(marker);
      if (at >= 0 && at < cut) {
        cut = at;
      }
    }
    return text.substring(0, cut);
  }

  private static String path(JsonMappingException e) {
    return e.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining("."))
        .replace(".[", "[");
  }

  private static String expected(Class<?> type) {
    if (type == null) {
      return "another type";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive() && type != boolean.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (java.util.Collection.class.isAssignableFrom(type)) {
      return "an array";
    }
    return "an object";
  }
}
