/** Runs simulations: virtual users, their connections, and the schedule that starts them. */
package io.reactiveregistry.loadtest.engine;
