package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Answer of {@code admin.trace.query}: the matching events, oldest first. {@code truncated}: more
 * matched than {@code limit}, and only the newest were given; {@code keptSince}: the time of the
 * oldest event this member still keeps (null when it keeps none), so a caller knows whether the
 * window it asked for reaches further back than the history does.
 */
public record TraceHistory(List<TraceEvent> events, boolean truncated, @Nullable Long keptSince) {}
