/** The console summary and the self-contained HTML report of a run. */
package io.reactiveregistry.loadtest.report;
