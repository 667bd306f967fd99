/** The built-in simulations, each a fleet behaviour a registry must survive, with scale parameters. */
package io.reactiveregistry.loadtest.simulations;
