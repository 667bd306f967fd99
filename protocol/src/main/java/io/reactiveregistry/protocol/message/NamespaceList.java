package io.reactiveregistry.protocol.message;

import java.util.List;

/**
 * Answer to {@code namespace.list}: the namespaces that hold at least one service and that the caller
 * may read, by name. A namespace exists while it holds a service; {@code public} is listed only then too.
 */
public record NamespaceList(List<NamespaceSummary> namespaces) {}
