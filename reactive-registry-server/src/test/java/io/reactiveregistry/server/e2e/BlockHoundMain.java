package io.reactiveregistry.server.e2e;

import io.reactiveregistry.server.Main;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The server's {@link Main} with blocking detection on, for the server processes tests start:
 * BlockHound installed with the same allowances as the test JVM ({@code NonBlockingAllowances},
 * found by its service loader), every blocking call on a non-blocking thread logged as
 * {@value #BLOCKED} (and failing that call, as in the tests), and a self-check that proves it is on
 * before the server starts ({@value #ACTIVE}).
 */
public final class BlockHoundMain {
  static final String ACTIVE = "blockhound: active";
  static final String BLOCKED = "blockhound: blocking call";

  private BlockHoundMain() {}

  /** True during the self-check, whose blocking call is expected and not reported. */
  private static volatile boolean checking = true;

  public static void main(String[] args) {
    BlockHound.Builder builder = BlockHound.builder();
    Instrumentation agent = BlockHoundAgent.instrumentation();
    if (agent != null && runtimeOnBootClassPath()) {
      // Started by ServerProcess with a class archive: BlockHound's runtime classes are on the
      // boot class path already, and appending them again would turn class sharing off.
      builder = builder.with(withoutBootClassPathAppends(agent));
    }
    builder
        .loadIntegrations()
        .blockingMethodCallback(method -> {
          if (!checking) {
            System.out.println(BLOCKED + " " + method + " on " + Thread.currentThread().getName());
            // Where it came from: without it a blocking call in a server process cannot be traced.
            StackWalker.getInstance().forEach(frame -> System.out.println("\tat " + frame));
          }
          throw new Error("Blocking call! " + method);
        })
        .install();
    try {
      Mono.fromCallable(() -> {
        Thread.sleep(1);
        return 1;
      }).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(5));
      throw new IllegalStateException("BlockHound did not detect a sleep on a parallel thread");
    } catch (RuntimeException | Error detected) {
      if (!String.valueOf(detected.getMessage()).contains("Blocking call")) {
        throw detected;
      }
      checking = false;
      System.out.println(ACTIVE);
    }
    Main.main(args);
  }

  /** Looked up in the boot loader only: resolving it through this class's loader would define a second copy. */
  private static boolean runtimeOnBootClassPath() {
    try {
      Class.forName("reactor.blockhound.BlockHoundRuntime", false, null);
      return true;
    } catch (ClassNotFoundException notThere) {
      return false;
    }
  }

  private static Instrumentation withoutBootClassPathAppends(Instrumentation instrumentation) {
    return (Instrumentation) Proxy.newProxyInstance(BlockHoundMain.class.getClassLoader(),
        new Class<?>[] {Instrumentation.class}, (proxy, method, arguments) -> {
          if (method.getName().equals("appendToBootstrapClassLoaderSearch")) {
            return null;
          }
          try {
            return method.invoke(instrumentation, arguments);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
