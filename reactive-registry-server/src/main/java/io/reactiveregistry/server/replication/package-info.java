/**
 * Ephemeral instances across a cluster: each node streams the changes of what its own connections
 * own to every peer ({@link io.reactiveregistry.server.replication.ClaimFeeds}, route {@code
 * cluster.replicate}), and follows every peer's stream ({@link
 * io.reactiveregistry.server.replication.PeerLink}), keeping a lost peer's copies for a grace
 * period and repairing any difference a digest reveals. What the copies mean, and which claim of
 * an instance is shown, is the core's ({@code core.Replicas}); this package only carries them.
 */
@NullMarked
package io.reactiveregistry.server.replication;

import org.jspecify.annotations.NullMarked;
