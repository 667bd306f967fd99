package io.reactiveregistry.protocol.message;

import java.util.List;

/** Answer to {@code instance.batch-register}. */
public record BatchResult(List<String> instanceIds, long revision) {}
