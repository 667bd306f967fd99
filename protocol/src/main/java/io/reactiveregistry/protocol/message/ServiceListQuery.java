package io.reactiveregistry.protocol.message;

/** Body of {@code service.list}. A null {@code group} means every group. */
public record ServiceListQuery(String namespace, String group, String prefix, Integer page, Integer pageSize) {}
