/** Encoding and decoding of the contract's JSON bodies and RSocket metadata. */
@NullMarked
package io.reactiveregistry.protocol.codec;

import org.jspecify.annotations.NullMarked;
