package io.reactiveregistry.server.e2e;

import io.reactiveregistry.server.Main;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

/**
 * Class data sharing for the server processes a test JVM starts, where a module asks for it
 * ({@value #PROPERTY}{@code =true}: the system tests, which start dozens). A server process
 * with blocking detection spends about 4.4 s of CPU reaching its ports with the suite's JVM
 * options ({@code test.jvm}), loading the same 9,000 classes every time; from a class archive (the
 * JDK's AppCDS) it takes about 3.4 s, and about 0.4 s less again when the archive's classes are
 * loaded before BlockHound is installed (its class list is passed as {@value BlockHoundMain#PRELOAD}).
 *
 * <p>Built once per class path, in {@code target/server-class-archive/<hash>}, under a file lock
 * the test JVMs of a module share: one server is started with {@code -XX:DumpLoadedClassList}
 * and stopped once listening, then {@code java -Xshare:dump} archives what it loaded. Two things
 * make an archive usable with BlockHound: its runtime classes are put on the boot class path
 * from the start ({@code -Xbootclasspath/a}, the jar BlockHound would write), since a JVM that
 * appends to it while running stops sharing application classes; and a Java agent
 * ({@link BlockHoundAgent}) hands {@link BlockHoundMain} the instrumentation to give BlockHound.
 * Archives need a class path of jars only: the test module's own class directories are left out
 * (a server needs none of them). Anything that goes wrong leaves the processes started as before,
 * without an archive, and says so on standard error.
 */
final class ServerClassArchive {
  static final String PROPERTY = "registry.test.classArchive";
  private static final Path ROOT = Path.of("target", "server-class-archive");
  private static List<String> options; // guarded by the class: options() is synchronized

  private ServerClassArchive() {}

  /** The JVM options and class path for a server process: with the archive, or the test JVM's class path alone. */
  static synchronized List<String> options() {
    if (options == null) {
      options = prepare();
    }
    return options;
  }

  private static List<String> plain() {
    return List.of("-cp", System.getProperty("java.class.path"));
  }

  private static List<String> prepare() {
    if (!Boolean.getBoolean(PROPERTY) || !fromJar(Main.class) || !fromJar(BlockHoundMain.class)) {
      return plain();
    }
    String jars = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(entry -> entry.endsWith(".jar")).collect(Collectors.joining(File.pathSeparator));
    try {
      // A jar rebuilt at the same path makes the JVM refuse the archive: each jar's size and time count.
      StringBuilder key = new StringBuilder(System.getProperty("java.vm.version"));
      for (String jar : jars.split(File.pathSeparator)) {
        Path path = Path.of(jar);
        key.append('|').append(jar).append(' ').append(Files.size(path)).append(' ')
            .append(Files.getLastModifiedTime(path).toMillis());
      }
      Path dir = ROOT.resolve(hash(key.toString()));
      Files.createDirectories(dir);
      Path archive = dir.resolve("server.jsa");
      Path agent = dir.resolve("agent.jar");
      Path boot = dir.resolve("blockhound-runtime.jar");
      try (FileChannel lockFile = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE); FileLock held = lockFile.lock()) {
        if (!Files.exists(archive)) {
          build(dir, jars, agent, boot, archive);
        }
      }
      return List.of("-Xbootclasspath/a:" + boot.toAbsolutePath(), "-javaagent:" + agent.toAbsolutePath(),
          "-XX:SharedArchiveFile=" + archive.toAbsolutePath(),
          "-D" + BlockHoundMain.PRELOAD + "=" + dir.resolve("classes.lst").toAbsolutePath(), "-cp", jars);
    } catch (Exception e) {
      System.err.println("server class archive not used (" + e + "): server processes start without it");
      return plain();
    }
  }

  private static void build(Path dir, String jars, Path agent, Path boot, Path archive) throws Exception {
    writeAgentJar(agent);
    writeBlockHoundRuntimeJar(boot);
    Path classes = dir.resolve("classes.lst");
    Path log = dir.resolve("class-list-run.log");
    Path data = dir.resolve("class-list-run-data");
    List<String> run = new ArrayList<>(List.of(java(), "-Xmx384m", "-XX:TieredStopAtLevel=1",
        "-XX:+AllowRedefinitionToAddDeleteMethods", "-Xbootclasspath/a:" + boot.toAbsolutePath(),
        "-javaagent:" + agent.toAbsolutePath(), "-XX:DumpLoadedClassList=" + classes.toAbsolutePath(), "-cp", jars,
        BlockHoundMain.class.getName(), "--host", "127.0.0.1", "--port", "0", "--raft-port", "0", "--ws-port", "0",
        "--http-port", "0", "--nacos-port", "-1", "--data-dir", data.toString()));
    Process server = new ProcessBuilder(run).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    // Stopped with SIGTERM once listening, so that the list is complete and closed.
    ServerProcess.awaitListening(server, log).terminate(Duration.ofSeconds(30));
    Path partial = dir.resolve("server.jsa.partial");
    Process dump = new ProcessBuilder(java(), "-Xshare:dump", "-Xbootclasspath/a:" + boot.toAbsolutePath(),
        "-XX:SharedClassListFile=" + classes.toAbsolutePath(), "-XX:SharedArchiveFile=" + partial.toAbsolutePath(),
        "-cp", jars).redirectErrorStream(true).redirectOutput(dir.resolve("dump.log").toFile()).start();
    if (!dump.waitFor(3, TimeUnit.MINUTES) || dump.exitValue() != 0) {
      dump.destroyForcibly();
      throw new IllegalStateException("java -Xshare:dump failed; see " + dir.resolve("dump.log"));
    }
    Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void writeAgentJar(Path agent) throws IOException {
    Manifest manifest = new Manifest();
    Attributes attributes = manifest.getMainAttributes();
    attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    attributes.putValue("Premain-Class", BlockHoundAgent.class.getName());
    attributes.putValue("Can-Redefine-Classes", "true");
    attributes.putValue("Can-Retransform-Classes", "true");
    attributes.putValue("Can-Set-Native-Method-Prefix", "true");
    try (OutputStream out = Files.newOutputStream(agent); JarOutputStream jar = new JarOutputStream(out, manifest)) {
      // the agent's class is on the class path already
    }
  }

  /**
   * The jar BlockHound writes and appends to the boot class path at install, written by
   * BlockHound's own code (its runtime classes made public), so that the copy given to
   * {@code -Xbootclasspath/a} is the one it would have made.
   */
  private static void writeBlockHoundRuntimeJar(Path boot) throws Exception {
    Path[] written = new Path[1];
    Instrumentation capture = (Instrumentation) Proxy.newProxyInstance(ServerClassArchive.class.getClassLoader(),
        new Class<?>[] {Instrumentation.class}, (proxy, method, arguments) -> {
          if (!method.getName().equals("appendToBootstrapClassLoaderSearch")) {
            throw new UnsupportedOperationException(method.getName());
          }
          written[0] = Path.of(((JarFile) arguments[0]).getName());
          return null;
        });
    Method inject = Class.forName("reactor.blockhound.InstrumentationUtils")
        .getDeclaredMethod("injectBootstrapClasses", Instrumentation.class, String[].class);
    inject.setAccessible(true);
    inject.invoke(null, capture,
        new String[] {"reactor/blockhound/BlockHoundRuntime", "reactor/blockhound/BlockHoundRuntime$State"});
    Files.copy(written[0], boot, StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(written[0]);
  }

  private static boolean fromJar(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation().getPath().endsWith(".jar");
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static String hash(String text) throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(digest, 0, 8);
  }
}
