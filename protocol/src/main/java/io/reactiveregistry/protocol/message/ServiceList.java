package io.reactiveregistry.protocol.message;

import java.util.List;

/** Answer to {@code service.list}. */
public record ServiceList(long total, List<ServiceSummary> services) {}
