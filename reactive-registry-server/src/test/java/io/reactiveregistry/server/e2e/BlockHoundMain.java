package io.reactiveregistry.server.e2e;

import io.reactiveregistry.server.Main;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
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
  /** The class list of the process's class archive ({@link ServerClassArchive}), loaded before BlockHound. */
  static final String PRELOAD = "registry.test.preloadClasses";

  private BlockHoundMain() {}

  /** True during the self-check, whose blocking call is expected and not reported. */
  private static volatile boolean checking = true;

  public static void main(String[] args) throws IOException {
    preload();
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

  /**
   * Loads (without initializing) the classes of the archive's class list, where a process has one.
   * Once BlockHound is installed, every class loaded is handed to its class file transformers, and
   * for that the JVM reads a shared class's bytes from its jar instead of taking the class as
   * archived: about half a second of CPU over the 6,500 classes of the list (a start 3.6-4.3 s,
   * 3.2-3.6 s with the preload: {@code load-tests/bench/test-server-start.sh}). Loaded before the
   * install, they come straight from the archive. Detection is the same: BlockHound instruments
   * the blocking methods and the allowances of classes already loaded by retransforming them, as
   * it does in a test JVM that installs it after loading JUnit.
   */
  private static void preload() throws IOException {
    String list = System.getProperty(PRELOAD);
    if (list == null) {
      return;
    }
    ClassLoader loader = BlockHoundMain.class.getClassLoader();
    for (String line : Files.readAllLines(Path.of(list))) {
      // "java/lang/Object id: 0"; comments, "@" lines (lambda forms) and generated classes are not loadable by name
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("@") || line.contains("$$Lambda")
          || line.startsWith("jdk/proxy")) {
        continue;
      }
      int end = line.indexOf(' ');
      try {
        Class.forName((end < 0 ? line : line.substring(0, end)).replace('/', '.'), false, loader);
      } catch (ClassNotFoundException | LinkageError notHere) {
        // a class of the run that made the list (a generated one, say): loaded later, if ever
      }
    }
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
