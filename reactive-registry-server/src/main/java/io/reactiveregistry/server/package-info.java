/**
 * The server: {@link io.reactiveregistry.server.RegistryServer} starts one (and is what an
 * application embedding the registry uses, with a {@link io.reactiveregistry.server.ServerConfig});
 * {@code Main} is the command line, whose settings come from flags, {@code REGISTRY_*} variables, a
 * properties file, then the {@code DEFAULTS} records. The packages below are the parts: {@code core}
 * (the state machine), {@code runtime} (where it meets threads), {@code request} (the one way in:
 * decoding, the permission table, rendering), {@code transport} and {@code http} (the doors),
 * {@code wire} (JSON bodies to and from the core's types), {@code push}, {@code replication},
 * {@code cluster}, {@code lifecycle}, {@code storage}, {@code admission}, {@code security},
 * {@code tls}, {@code errors}, {@code audit}, {@code metrics} and {@code process}.
 */
package io.reactiveregistry.server;
