package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/**
 * Body of {@code admin.trace.query}: the kept history's events that match every field given (a
 * null field matches everything). {@code since} and {@code until} are epoch milliseconds, since
 * inclusive and until exclusive; {@code limit} caps the answer at the newest that many (1000 when
 * null, at most 10,000).
 */
public record TraceHistoryQuery(
    @Nullable String namespace, @Nullable String group, @Nullable String service, @Nullable String instanceId,
    @Nullable String cause, @Nullable String principal, @Nullable Long since, @Nullable Long until,
    @Nullable Integer limit) {}
