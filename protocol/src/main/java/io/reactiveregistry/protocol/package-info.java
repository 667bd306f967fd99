/**
 * The registry's wire contract (PROTOCOL.md, version 1) as code: route names with their
 * interaction model, error codes, MIME types and protocol constants. The JSON bodies live in
 * {@code message}, the JSON codec and RSocket metadata helpers in {@code codec}. Nothing here
 * holds server or client logic.
 */
@NullMarked
package io.reactiveregistry.protocol;

import org.jspecify.annotations.NullMarked;
