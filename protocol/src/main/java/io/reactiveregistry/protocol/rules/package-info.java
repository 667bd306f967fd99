/**
 * The contract's rules for values (PROTOCOL.md, "Identity and defaults") as pure functions, shared
 * by the server, which enforces them, and the client, which checks them before sending so that a
 * mistake is reported with the server's own words without a round trip. Imports nothing from
 * Jackson or RSocket.
 */
@NullMarked
package io.reactiveregistry.protocol.rules;

import org.jspecify.annotations.NullMarked;
