/**
 * Who may use the registry. Today: protected mode — with no credentials configured, only loopback
 * connections are served, on every port, unless the operator says otherwise
 * ({@code --allow-unauthenticated}). Tokens, permissions and TLS build on it.
 */
package io.reactiveregistry.server.security;
