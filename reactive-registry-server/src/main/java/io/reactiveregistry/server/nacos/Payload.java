package io.reactiveregistry.server.nacos;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What every Nacos 2.x gRPC call carries, in both directions: {@code Payload { Metadata metadata = 2;
 * google.protobuf.Any body = 3; }}, with {@code Metadata { string type = 3; map<string,string>
 * headers = 7; string clientIp = 8; }}. {@code type} names the request or response (its Java class's
 * simple name in Nacos) and the body's value is that object as JSON.
 *
 * <p>Read and written with protobuf-java's coded streams rather than classes generated from a
 * {@code .proto}: two small messages, and no code-generation step in the build.
 *
 * @param type the request or response type, {@code ""} when absent
 * @param clientIp the address the client says it has, {@code ""} when absent
 * @param headers the request's headers (the access token travels here)
 * @param body the JSON document, empty when absent
 */
record Payload(String type, String clientIp, Map<String, String> headers, byte[] body) {

  /** A response or a server request: the type and its JSON. */
  static Payload of(String type, byte[] json) {
    return new Payload(type, "", Map.of(), json);
  }

  // Field numbers of nacos_grpc_service.proto and of google/protobuf/any.proto.
  private static final int PAYLOAD_METADATA = 2;
  private static final int PAYLOAD_BODY = 3;
  private static final int METADATA_TYPE = 3;
  private static final int METADATA_HEADERS = 7;
  private static final int METADATA_CLIENT_IP = 8;
  private static final int ANY_VALUE = 2;
  private static final int ENTRY_KEY = 1;
  private static final int ENTRY_VALUE = 2;

  /** gRPC's marshaller of the message, for the methods' descriptors. */
  static final MethodDescriptor.Marshaller<Payload> MARSHALLER = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(Payload value) {
      return new ByteArrayInputStream(value.encode());
    }

    @Override
    public Payload parse(InputStream stream) {
      try {
        return decode(CodedInputStream.newInstance(stream));
      } catch (IOException e) {
        // gRPC answers the call with INTERNAL and this message; the connection stays.
        throw new UncheckedIOException("the Payload message is not valid protobuf: " + e.getMessage(), e);
      }
    }
  };

  byte[] encode() {
    byte[] typeBytes = utf8(type);
    byte[] ipBytes = utf8(clientIp);
    int metadataSize = sizeOfString(METADATA_TYPE, typeBytes) + sizeOfString(METADATA_CLIENT_IP, ipBytes);
    for (Map.Entry<String, String> header : headers.entrySet()) {
      int entrySize = entrySize(header);
      metadataSize += CodedOutputStream.computeTagSize(METADATA_HEADERS)
          + CodedOutputStream.computeUInt32SizeNoTag(entrySize) + entrySize;
    }
    int anySize = body.length == 0 ? 0 : CodedOutputStream.computeByteArraySize(ANY_VALUE, body);
    int size = CodedOutputStream.computeTagSize(PAYLOAD_METADATA) + CodedOutputStream.computeUInt32SizeNoTag(metadataSize)
        + metadataSize + CodedOutputStream.computeTagSize(PAYLOAD_BODY)
        + CodedOutputStream.computeUInt32SizeNoTag(anySize) + anySize;
    byte[] out = new byte[size];
    CodedOutputStream writer = CodedOutputStream.newInstance(out);
    try {
      writer.writeTag(PAYLOAD_METADATA, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      writer.writeUInt32NoTag(metadataSize);
      writeString(writer, METADATA_TYPE, typeBytes);
      for (Map.Entry<String, String> header : headers.entrySet()) {
        writer.writeTag(METADATA_HEADERS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        writer.writeUInt32NoTag(entrySize(header));
        writer.writeString(ENTRY_KEY, header.getKey());
        writer.writeString(ENTRY_VALUE, header.getValue());
      }
      writeString(writer, METADATA_CLIENT_IP, ipBytes);
      writer.writeTag(PAYLOAD_BODY, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      writer.writeUInt32NoTag(anySize);
      if (body.length > 0) {
        writer.writeByteArray(ANY_VALUE, body);
      }
      writer.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // an array of the computed size cannot run out
    }
    return out;
  }

  static Payload decode(CodedInputStream in) throws IOException {
    String type = "";
    String clientIp = "";
    Map<String, String> headers = new LinkedHashMap<>();
    byte[] body = new byte[0];
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      int field = WireFormat.getTagFieldNumber(tag);
      if (field == PAYLOAD_METADATA && lengthDelimited(tag)) {
        int limit = in.pushLimit(in.readRawVarint32());
        for (int inner = in.readTag(); inner != 0; inner = in.readTag()) {
          switch (lengthDelimited(inner) ? WireFormat.getTagFieldNumber(inner) : -1) {
            case METADATA_TYPE -> type = in.readStringRequireUtf8();
            case METADATA_CLIENT_IP -> clientIp = in.readStringRequireUtf8();
            case METADATA_HEADERS -> readEntry(in, headers);
            default -> in.skipField(inner);
          }
        }
        in.popLimit(limit);
      } else if (field == PAYLOAD_BODY && lengthDelimited(tag)) {
        int limit = in.pushLimit(in.readRawVarint32());
        for (int inner = in.readTag(); inner != 0; inner = in.readTag()) {
          if (WireFormat.getTagFieldNumber(inner) == ANY_VALUE && lengthDelimited(inner)) {
            body = in.readByteArray();
          } else {
            in.skipField(inner); // type_url: Nacos leaves it empty and the type is in the metadata
          }
        }
        in.popLimit(limit);
      } else {
        in.skipField(tag);
      }
    }
    return new Payload(type, clientIp, headers, body);
  }

  private static void readEntry(CodedInputStream in, Map<String, String> headers) throws IOException {
    int limit = in.pushLimit(in.readRawVarint32());
    String key = "";
    String value = "";
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (lengthDelimited(tag) ? WireFormat.getTagFieldNumber(tag) : -1) {
        case ENTRY_KEY -> key = in.readStringRequireUtf8();
        case ENTRY_VALUE -> value = in.readStringRequireUtf8();
        default -> in.skipField(tag);
      }
    }
    in.popLimit(limit);
    headers.put(key, value);
  }

  private static boolean lengthDelimited(int tag) {
    return WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
  }

  private static int entrySize(Map.Entry<String, String> entry) {
    return CodedOutputStream.computeStringSize(ENTRY_KEY, entry.getKey())
        + CodedOutputStream.computeStringSize(ENTRY_VALUE, entry.getValue());
  }

  /** proto3 leaves an empty string out. */
  private static int sizeOfString(int field, byte[] value) {
    return value.length == 0 ? 0 : CodedOutputStream.computeByteArraySize(field, value);
  }

  private static void writeString(CodedOutputStream writer, int field, byte[] value) throws IOException {
    if (value.length > 0) {
      writer.writeByteArray(field, value);
    }
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "Payload[" + type + ", " + body.length + " bytes]";
  }
}
