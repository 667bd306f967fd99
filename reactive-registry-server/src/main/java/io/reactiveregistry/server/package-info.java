/**
 * The server: {@link io.reactiveregistry.server.RegistryServer} starts one (and is what an
 * application embedding the registry uses, with a {@link io.reactiveregistry.server.ServerConfig});
 * {@code Main} is the command line, whose settings come from flags, {@code REGISTRY_*} variables, a
 * properties file, then the {@code DEFAULTS} records. The packages below are the parts: {@code core}
 * (the state machine), {@code runtime} (where it meets threads), {@code transport}, {@code http} and
 * {@code wire} (the doors), {@code push}, {@code lifecycle}, {@code storage}, {@code admission},
 * {@code errors}, {@code audit}, {@code metrics} and {@code process}.
 */
package io.reactiveregistry.server;
