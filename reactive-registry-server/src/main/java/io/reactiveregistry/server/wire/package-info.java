/**
 * Between the contract's JSON bodies and the core's types, in one place for every door: requests
 * into commands ({@link io.reactiveregistry.server.wire.CommandDecoder}), outcomes and views into
 * answers ({@link io.reactiveregistry.server.wire.OutcomeEncoder}, {@code WireViews}), listings
 * into pages ({@code ServicePages}).
 */
package io.reactiveregistry.server.wire;
