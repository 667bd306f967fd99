package io.reactiveregistry.server.process;

import io.netty.util.internal.OutOfDirectMemoryError;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;

/**
 * The server exits when it runs out of memory. After an {@link OutOfMemoryError} any thread may
 * have stopped half way through a change (Ratis's log worker, an event loop, the registry's own
 * monitor), so what the process holds can no longer be trusted; a supervisor restarts it, durable
 * state is replayed from the log and clients register their ephemeral instances again. The limits
 * and quotas exist so that this does not happen; this is for when it happens anyway.
 *
 * <p>{@link #exitOnOutOfMemory} is called by the server's {@code main} (an application embedding
 * the server decides for itself); from then on an {@code OutOfMemoryError} seen here halts the JVM
 * with status {@value #EXIT_STATUS}, as {@code -XX:+ExitOnOutOfMemoryError} does: an uncaught one
 * on any thread, one Reactor drops or a scheduler's task throws, one a request ends with, and one
 * that broke durable storage (but not Netty's direct-memory ceiling reached: see {@link #check}). Libraries that catch and log such errors themselves (Netty's event
 * loops do) are out of reach: the README recommends the JVM flag too.
 */
public final class FatalErrors {
  /** The JVM's own status for {@code -XX:+ExitOnOutOfMemoryError}. */
  public static final int EXIT_STATUS = 3;
  private static final Logger log = LoggerFactory.getLogger(FatalErrors.class);
  /** Allocated up front: there may be no memory for building it later. */
  private static final String MESSAGE = "OutOfMemoryError: the server's state can no longer be trusted; exiting with "
      + "status " + EXIT_STATUS + " so that a supervisor restarts it";

  private static volatile IntConsumer halt;

  private FatalErrors() {}

  /** From now on, an {@code OutOfMemoryError} seen anywhere this class watches ends the process. */
  public static void exitOnOutOfMemory() {
    exitOnOutOfMemory(status -> Runtime.getRuntime().halt(status));
  }

  /** The same, with what halting does (tests record it instead). */
  public static void exitOnOutOfMemory(IntConsumer haltWith) {
    halt = haltWith;
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
      check(error);
      if (previous != null) {
        previous.uncaughtException(thread, error);
      } else {
        System.err.println("Exception in thread \"" + thread.getName() + "\" " + error);
      }
    });
    Hooks.onErrorDropped(FatalErrors::check);
    Schedulers.onHandleError("fatal-errors", (thread, error) -> check(error));
  }

  /** Stops watching (tests). */
  public static void reset() {
    halt = null;
    Thread.setDefaultUncaughtExceptionHandler(null);
    Hooks.resetOnErrorDropped();
    Schedulers.resetOnHandleError();
  }

  /** Halts the process if {@code error}, or one of its causes, is an {@code OutOfMemoryError} and exiting is on. */
  public static void check(Throwable error) {
    IntConsumer haltWith = halt;
    if (haltWith == null || !outOfMemory(error)) {
      return;
    }
    try {
      System.err.println(MESSAGE);
      log.error(MESSAGE, error);
    } catch (Throwable ignored) {
      // no memory even to log: halting matters more
    }
    haltWith.accept(EXIT_STATUS);
  }

  private static boolean outOfMemory(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      // Netty's direct-memory ceiling reached is not the heap exhausted: buffers are released as
      // their connections go, and only the connection whose allocation failed is closed.
      if (cause instanceof OutOfMemoryError && !(cause instanceof OutOfDirectMemoryError)) {
        return true;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return false;
  }
}
