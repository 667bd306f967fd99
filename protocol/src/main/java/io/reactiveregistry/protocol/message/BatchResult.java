package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Answer to {@code instance.batch-register}.
 *
 * @param heartbeatIntervalMs how often the connection should heartbeat the batch: the shortest
 *     interval among its instances (the default for an empty batch)
 */
public record BatchResult(List<String> instanceIds, long revision, @Nullable Long heartbeatIntervalMs) {}
