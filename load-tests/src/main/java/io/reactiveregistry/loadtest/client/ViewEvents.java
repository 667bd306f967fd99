package io.reactiveregistry.loadtest.client;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.BitSet;

/**
 * A {@code service.subscribe} event applied to a lean view of the storm's fleet, read from its JSON
 * bytes as the server writes them: each {@code "instanceId"} belongs to the event whose {@code
 * "type"} came last before it (a {@code BATCH}'s events in their order), a SNAPSHOT starts the view
 * afresh, UPSERT adds, REMOVE takes away, SERVICE_DELETED empties it. Only instance ids of the
 * fleet's form ({@code 127.0.a.b#...}, member {@code a * 250 + b - 1}) count; others are ignored.
 */
final class ViewEvents {
  private static final byte[] TYPE = "\"type\":\"".getBytes(StandardCharsets.UTF_8);
  private static final byte[] INSTANCE_ID = "\"instanceId\":\"".getBytes(StandardCharsets.UTF_8);
  private static final byte[] FLEET_PREFIX = "127.0.".getBytes(StandardCharsets.UTF_8);
  private static final ThreadLocal<byte[]> BYTES = ThreadLocal.withInitial(() -> new byte[64 * 1024]);

  private enum Kind { ADD, REMOVE, NONE }

  private ViewEvents() {}

  static void apply(ByteBuf event, BitSet view) {
    int length = event.readableBytes();
    byte[] bytes = BYTES.get();
    if (bytes.length < length) {
      bytes = new byte[Math.max(length, 2 * bytes.length)];
      BYTES.set(bytes);
    }
    event.getBytes(event.readerIndex(), bytes, 0, length);
    apply(bytes, length, view);
  }

  static void apply(byte[] bytes, int length, BitSet view) {
    Kind kind = Kind.NONE;
    for (int i = 0; i < length; i++) {
      if (bytes[i] != '"') {
        continue;
      }
      if (startsAt(bytes, length, i, TYPE)) {
        int from = i + TYPE.length;
        int end = quote(bytes, length, from);
        String type = new String(bytes, from, end - from, StandardCharsets.US_ASCII);
        switch (type) {
          case "SNAPSHOT" -> {
            view.clear();
            kind = Kind.ADD;
          }
          case "UPSERT" -> kind = Kind.ADD;
          case "REMOVE" -> kind = Kind.REMOVE;
          case "SERVICE_DELETED" -> {
            view.clear();
            kind = Kind.NONE;
          }
          default -> kind = Kind.NONE; // BATCH, RESUMED: their own events follow
        }
        i = end;
      } else if (startsAt(bytes, length, i, INSTANCE_ID)) {
        int from = i + INSTANCE_ID.length;
        int member = member(bytes, length, from);
        if (member >= 0 && kind == Kind.ADD) {
          view.set(member);
        } else if (member >= 0 && kind == Kind.REMOVE) {
          view.clear(member);
        }
        i = quote(bytes, length, from);
      }
    }
  }

  /** The fleet member of an instance id {@code 127.0.a.b#...} at {@code from}; -1 for another id. */
  private static int member(byte[] bytes, int length, int from) {
    if (!startsAt(bytes, length, from, FLEET_PREFIX)) {
      return -1;
    }
    int a = 0;
    int i = from + FLEET_PREFIX.length;
    int digits = 0;
    for (; i < length && bytes[i] >= '0' && bytes[i] <= '9'; i++, digits++) {
      a = a * 10 + bytes[i] - '0';
    }
    if (digits == 0 || i >= length || bytes[i] != '.') {
      return -1;
    }
    int b = 0;
    digits = 0;
    for (i++; i < length && bytes[i] >= '0' && bytes[i] <= '9'; i++, digits++) {
      b = b * 10 + bytes[i] - '0';
    }
    if (digits == 0 || i >= length || bytes[i] != '#' || b < 1 || b > 250) {
      return -1;
    }
    return a * 250 + b - 1;
  }

  private static boolean startsAt(byte[] bytes, int length, int at, byte[] key) {
    return at + key.length <= length && Arrays.equals(bytes, at, at + key.length, key, 0, key.length);
  }

  /** The index of the quote closing the string from {@code from}, or {@code length}. */
  private static int quote(byte[] bytes, int length, int from) {
    int i = from;
    while (i < length && bytes[i] != '"') {
      i++;
    }
    return i;
  }
}
