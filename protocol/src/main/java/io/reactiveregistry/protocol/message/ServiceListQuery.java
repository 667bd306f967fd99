package io.reactiveregistry.protocol.message;

import org.jspecify.annotations.Nullable;

/** Body of {@code service.list}. A null {@code group} means every group. */
public record ServiceListQuery(@Nullable String namespace, @Nullable String group, @Nullable String prefix, @Nullable Integer page, @Nullable Integer pageSize) {}
