package io.reactiveregistry.server.core;

/**
 * What self-preservation judges by, for operators: the heartbeats expected and received per
 * minute over its window, the share below which it turns on, and whether there was enough to
 * judge by (enough instances and expected heartbeats; without, it never turns on).
 */
public record HeartbeatFigures(double expectedPerMinute, double receivedPerMinute, double threshold, boolean judged,
    boolean enabled) {}
