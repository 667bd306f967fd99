package io.reactiveregistry.protocol.message;

/** The JSON message of an {@code APPLICATION_ERROR} frame. */
public record ErrorBody(String code, String message) {}
