/** Conversion between the core's types and the contract's JSON bodies, in one place. */
package io.reactiveregistry.server.wire;
