/**
 * The request layer: the one way in from every door. A door hands it the caller's principal, the
 * route and the body; here the body is decoded once into a typed request, the route's permission is
 * checked from one table ({@link io.reactiveregistry.server.request.PermissionTable}), the command
 * is executed or the read answered, and the answer or the refusal is rendered by one renderer
 * ({@link io.reactiveregistry.server.request.Answer}, through the error table). Doors keep framing,
 * transport limits, authentication and back-pressure; they import neither the runtime nor the core.
 */
package io.reactiveregistry.server.request;
