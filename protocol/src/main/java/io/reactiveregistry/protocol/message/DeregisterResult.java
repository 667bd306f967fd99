package io.reactiveregistry.protocol.message;

/** Answer to {@code instance.deregister}; {@code removed} is false when there was nothing to remove. */
public record DeregisterResult(boolean removed, long revision) {}
