/** The audit trail: every change, with its cause and the connection that made it, streamed to operators. */
package io.reactiveregistry.server.audit;
