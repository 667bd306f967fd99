/**
 * {@code registry-cli}: a small RSocket command-line client for the registry. It sends exactly what
 * the contract asks of any RSocket tool (a route in composite metadata and a JSON body) and prints
 * the JSON it gets back, one document per line.
 */
package io.reactiveregistry.cli;
