package io.reactiveregistry.server.e2e;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.extension.Extension;
import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound (with the integrations listed under {@code META-INF/services}, the
 * allowances of {@link NonBlockingAllowances}) in a test JVM when JUnit starts executing, before
 * any test has started a scheduler thread: installing it later re-instruments JDK classes under
 * threads already inside them. JUnit makes it as its engine starts, from
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} (the build turns extension
 * detection on for the server's and the client's tests).
 *
 * <p>Not BlockHound's own JUnit listener: the build runs the server's tests in two JVMs, and
 * Surefire then lists the tests in its own JVM first, where that listener would instrument
 * Maven's JVM (which refuses without a JVM flag). An extension is made only where tests run.
 */
public final class BlockingDetection implements Extension {
  private static final AtomicBoolean installed = new AtomicBoolean();

  public BlockingDetection() {
    if (installed.compareAndSet(false, true)) {
      BlockHound.install();
    }
  }
}
