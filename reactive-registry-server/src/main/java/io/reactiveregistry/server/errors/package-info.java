/**
 * The one table from what went wrong to what a client reads: a contract error code, a message and,
 * for the HTTP API, a status. RSocket and HTTP both answer through it, so a refusal reads the same
 * whichever door it came through, and every code sent is one of {@code ErrorCode}'s.
 */
package io.reactiveregistry.server.errors;
