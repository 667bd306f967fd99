/**
 * What the server admits before it reads anything: how many connections each port holds, in all
 * and from one remote address. A connection past a limit is closed as soon as it is accepted, so
 * a flood of connections on one port (or from one machine) cannot take the descriptors and memory
 * that every other client needs.
 */
package io.reactiveregistry.server.admission;
