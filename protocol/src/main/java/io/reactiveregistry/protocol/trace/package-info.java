/** W3C trace context as callers send it: the {@code traceparent} value, read and written. */
@NullMarked
package io.reactiveregistry.protocol.trace;

import org.jspecify.annotations.NullMarked;
