package io.reactiveregistry.server.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;

/**
 * The core is free of transport types: no RSocket, Netty, Reactor or Jackson. Every door goes
 * through the request layer, which alone decides permissions.
 */
@AnalyzeClasses(packages = {"io.reactiveregistry.server", "io.reactiveregistry.protocol.rules",
    "io.reactiveregistry.protocol.trace"},
    importOptions = {ImportOption.DoNotIncludeTests.class, ArchitectureTest.NotTheServersTestJar.class})
class ArchitectureTest {
  /** The server's test fixtures come in its test jar, which DoNotIncludeTests does not recognise. */
  public static final class NotTheServersTestJar implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("-tests.jar");
    }
  }

  @ArchTest
  static final ArchRule coreImportsNoTransport = noClasses()
      .that().resideInAPackage("io.reactiveregistry.server.core..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "io.rsocket..", "io.netty..", "reactor..", "com.fasterxml.jackson..")
      .orShould().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("io.reactiveregistry.protocol..")
          .and(DescribedPredicate.not(JavaClass.Predicates.resideInAnyPackage("io.reactiveregistry.protocol.rules..",
              "io.reactiveregistry.protocol.trace.."))))
      .because("the registry core is a pure state machine; the edges adapt it (STYLE.md 1). It shares only the "
          + "contract's value rules with the client, and the W3C traceparent's form (a change's trace, written "
          + "into the replication stream and the Raft log in one form).");

  @ArchTest
  static final ArchRule sharedRulesArePure = noClasses()
      .that().resideInAnyPackage("io.reactiveregistry.protocol.rules..", "io.reactiveregistry.protocol.trace..")
      .should().dependOnClassesThat().resideInAnyPackage("io.rsocket..", "io.netty..", "reactor..",
          "com.fasterxml.jackson..");

  /**
   * Any way of reading the machine's clock: {@code System.currentTimeMillis/nanoTime}, every
   * {@code now()} of java.time, {@code Clock.system*}, {@code InstantSource.system()}, and
   * {@code new Date()}.
   */
  static final DescribedPredicate<JavaCall<?>> readsTheWallClock = new DescribedPredicate<>("read the wall clock") {
    @Override
    public boolean test(JavaCall<?> call) {
      String owner = call.getTargetOwner().getName();
      String name = call.getName();
      return owner.equals(System.class.getName()) && (name.equals("currentTimeMillis") || name.equals("nanoTime"))
          || owner.startsWith("java.time.") && name.equals("now")
          || owner.equals(java.time.Clock.class.getName()) && name.startsWith("system")
          || owner.equals(java.time.InstantSource.class.getName()) && name.equals("system")
          || owner.equals(java.util.Date.class.getName()) && name.equals("<init>") && call.getTarget()
              .getRawParameterTypes().isEmpty();
    }
  };

  @ArchTest
  static final ArchRule coreReadsNoWallClock = noClasses()
      .that().resideInAPackage("io.reactiveregistry.server.core..")
      .should().callCodeUnitWhere(readsTheWallClock)
      .because("time in the core is the InstantSource it is handed");

  @ArchTest
  static final ArchRule onlyStorageKnowsRatis = noClasses()
      .that().resideOutsideOfPackage("io.reactiveregistry.server.storage..")
      .should().dependOnClassesThat().resideInAPackage("org.apache.ratis..")
      .because("the Raft log is one adapter behind DurableStore; the rest of the server sees durable changes only");

  @ArchTest
  static final ArchRule storageKnowsNoTransport = noClasses()
      .that().resideInAPackage("io.reactiveregistry.server.storage..")
      .should().dependOnClassesThat().resideInAnyPackage("io.rsocket..", "io.reactiveregistry.server.transport..",
          "io.reactiveregistry.server.push..", "io.reactiveregistry.server.runtime..");

  @ArchTest
  static final ArchRule onlyTheTransportKnowsRSocket = noClasses()
      .that().resideInAnyPackage("io.reactiveregistry.server.push..", "io.reactiveregistry.server.runtime..",
          "io.reactiveregistry.server.lifecycle..", "io.reactiveregistry.server.wire..")
      .should().dependOnClassesThat().resideInAPackage("io.rsocket..");

  @ArchTest
  static final ArchRule edgesKnowNoStorage = noClasses()
      .that().resideInAnyPackage("io.reactiveregistry.server.transport..", "io.reactiveregistry.server.http..",
          "io.reactiveregistry.server.eureka..", "io.reactiveregistry.server.nacos..", "io.reactiveregistry.server.wire..",
          "io.reactiveregistry.server.errors..")
      .should().dependOnClassesThat().resideInAPackage("io.reactiveregistry.server.storage..")
      .because("the runtime turns storage's failures into the core's; the edges answer from one error table");

  @ArchTest
  static final ArchRule edgesRefuseWithTheirOwnException = noClasses()
      .that().resideOutsideOfPackages("io.reactiveregistry.server.core..", "io.reactiveregistry.server.runtime..")
      .should().callConstructor(io.reactiveregistry.server.core.RegistryException.class,
          io.reactiveregistry.server.core.Failure.class, String.class)
      .because("a refusal at an edge is an EdgeRefusal with a contract code; RegistryException is the core's");

  @ArchTest
  static final ArchRule onlyTheRuntimeAppliesCommands = noClasses()
      .that().resideOutsideOfPackages("io.reactiveregistry.server.core..", "io.reactiveregistry.server.runtime..")
      .should().callMethod(io.reactiveregistry.server.core.Registry.class, "apply",
          io.reactiveregistry.server.core.Command.class)
      .because("the runtime applies every command under its monitor, publishes its events and queues its durable "
          + "changes; anyone else would skip one of the three");

  @ArchTest
  static final ArchRule edgesBuildCommandsAndReadThroughReads = noClasses()
      .that().resideInAnyPackage("io.reactiveregistry.server.transport..", "io.reactiveregistry.server.http..",
          "io.reactiveregistry.server.wire..", "io.reactiveregistry.server.lifecycle..",
          "io.reactiveregistry.server.push..", "io.reactiveregistry.server.audit..")
      .should().dependOnClassesThat().areAssignableTo(io.reactiveregistry.server.core.Registry.class)
      .because("the edges and the lifecycle build Commands and read through RegistryReads; only the runtime holds "
          + "the Registry");

  static final String[] DOORS = {"io.reactiveregistry.server.transport..", "io.reactiveregistry.server.http..",
      "io.reactiveregistry.server.eureka..", "io.reactiveregistry.server.nacos.."};

  @ArchTest
  static final ArchRule doorsGoThroughTheRequestLayer = noClasses()
      .that().resideInAnyPackage(DOORS)
      .should().dependOnClassesThat().resideInAnyPackage("io.reactiveregistry.server.runtime..",
          "io.reactiveregistry.server.core..", "io.reactiveregistry.server.wire..")
      .because("a door frames, limits, authenticates and applies back-pressure; what a request means, who may make "
          + "it and how it is answered is the request layer's (ARCHITECTURE.md: doors, one request layer)");

  @ArchTest
  static final ArchRule onlyTheRequestLayerDecidesPermissions = noClasses()
      .that().resideOutsideOfPackages("io.reactiveregistry.server.request..", "io.reactiveregistry.server.security..")
      .should().callMethod(io.reactiveregistry.server.security.Access.class, "require",
          io.reactiveregistry.server.security.Principal.class, io.reactiveregistry.server.security.Permission.class,
          String.class)
      .orShould().callMethod(io.reactiveregistry.server.security.Access.class, "requireSomewhere",
          io.reactiveregistry.server.security.Principal.class, io.reactiveregistry.server.security.Permission.class)
      .because("which permission a route needs, and where, is one table: request.PermissionTable");

  @ArchTest
  static final ArchRule serverPackagesFormNoCycle = SlicesRuleDefinition.slices()
      .matching("io.reactiveregistry.server.(*)..")
      .should().beFreeOfCycles();
}
