/** Latency histograms and per-second time series, per request name. */
package io.reactiveregistry.loadtest.metrics;
