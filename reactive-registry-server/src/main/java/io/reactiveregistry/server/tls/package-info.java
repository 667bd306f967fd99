/**
 * TLS for every port of the server: the server's certificate and key from PEM files, read again
 * when they change, and optionally a CA whose certificates clients must present (mutual TLS).
 */
package io.reactiveregistry.server.tls;
