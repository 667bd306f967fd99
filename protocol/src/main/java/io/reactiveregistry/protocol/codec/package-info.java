/** Encoding and decoding of the contract's JSON bodies and RSocket metadata. */
package io.reactiveregistry.protocol.codec;
