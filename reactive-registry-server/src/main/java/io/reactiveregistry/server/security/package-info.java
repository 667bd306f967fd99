/**
 * Who may use the registry: protected mode (with no credentials configured, only loopback
 * connections are served, on every port, unless the operator says {@code --allow-unauthenticated}),
 * tokens from a watched file and signed tokens (JWT), each granting permissions per namespace, and
 * the guessing limit on tokens that are not valid ({@link
 * io.reactiveregistry.server.security.FailedAuthentications}). Which route needs which permission
 * is not decided here but in {@code request.PermissionTable}.
 */
package io.reactiveregistry.server.security;
