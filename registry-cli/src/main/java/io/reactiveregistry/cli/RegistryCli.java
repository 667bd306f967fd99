package io.reactiveregistry.cli;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.reactiveregistry.client.ClientTls;
import io.reactiveregistry.client.ClientTransports;
import io.reactiveregistry.protocol.Protocol;
import io.reactiveregistry.protocol.codec.BearerMetadata;
import io.reactiveregistry.protocol.codec.RouteMetadata;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.transport.ClientTransport;
import io.rsocket.util.ByteBufPayload;
import io.rsocket.util.DefaultPayload;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;

/** {@code java -jar registry-cli.jar --route service.query --data '{"service":"orders"}'}. */
@Command(name = "registry-cli", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Sends one RSocket request to a registry: a route in composite metadata and a JSON body. "
        + "Prints each JSON answer on its own line; a contract error is printed to stderr with exit code 1.")
public final class RegistryCli implements Callable<Integer> {

  @Option(names = {"-t", "--target"}, defaultValue = "tcp://127.0.0.1:7070",
      description = "Server address: tcp://host:port, tls://host:port for a server with TLS, or its WebSocket "
          + "endpoint, ws://host:port/rsocket (wss:// with TLS). Default: ${DEFAULT-VALUE}")
  URI target;

  @Option(names = "--ca-file", description = "With tls:// or wss://: PEM CA certificate(s) that signed the server's certificate "
      + "(default: the JVM's trust store)")
  Path caFile;

  @Option(names = "--cert-file", description = "With tls:// or wss://: PEM certificate to present, for a server that asks "
      + "for one (mutual TLS)")
  Path certFile;

  @Option(names = "--key-file", description = "With tls:// or wss://: PKCS#8 PEM key of --cert-file")
  Path keyFile;

  @Option(names = {"-r", "--route"}, required = true, description = "Route, e.g. instance.register")
  String route;

  @Option(names = {"-d", "--data"}, defaultValue = "{}", description = "JSON body. Default: ${DEFAULT-VALUE}")
  String data;

  @Option(names = "--token", defaultValue = "${env:REGISTRY_TOKEN}",
      description = "Bearer token presented in the SETUP, for a server with tokens (default: the REGISTRY_TOKEN "
          + "variable, which keeps it out of shell history)")
  String token;

  @Option(names = "--client", defaultValue = "registry-cli", description = "Client label sent in SETUP data")
  String client;

  @ArgGroup(exclusive = true)
  Interaction interaction = new Interaction();

  static final class Interaction {
    @Option(names = "--request", description = "request-response (the default)")
    boolean request;

    @Option(names = "--fnf", description = "fire-and-forget")
    boolean fireAndForget;

    @Option(names = "--stream", description = "request-stream: prints events until cancelled")
    boolean stream;
  }

  @Option(names = "--take", description = "With --stream: stop after this many events")
  Long take;

  @Option(names = "--hold", description = "Keep the connection open after the answer until Ctrl-C, so that "
      + "ephemeral instances it registered stay registered")
  boolean hold;

  private final PrintStream out;
  private final PrintStream err;

  public RegistryCli() {
    this(System.out, System.err);
  }

  RegistryCli(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new RegistryCli()).execute(args));
  }

  private Payload setup() {
    String data = "{\"client\":\"" + client.replace("\"", "") + "\"}";
    return token == null || token.isEmpty() ? DefaultPayload.create(data) : ByteBufPayload.create(
        Unpooled.copiedBuffer(data, StandardCharsets.UTF_8), BearerMetadata.composite(ByteBufAllocator.DEFAULT, token));
  }

  @Override
  public Integer call() {
    ClientTransport transport;
    try {
      transport = ClientTransports.of(target, new ClientTls(caFile, certFile, keyFile));
    } catch (IllegalArgumentException e) {
      err.println("--target: " + e.getMessage());
      return 2;
    }
    RSocket rsocket = RSocketConnector.create()
        .dataMimeType(Protocol.DATA_MIME_TYPE)
        .metadataMimeType(Protocol.METADATA_MIME_TYPE)
        .setupPayload(setup())
        .connect(transport)
        .block(Duration.ofSeconds(10));
    try {
      if (interaction.fireAndForget) {
        rsocket.fireAndForget(payload()).block(Duration.ofSeconds(10));
      } else if (interaction.stream) {
        Flux<String> events = rsocket.requestStream(payload()).map(RegistryCli::text);
        (take == null ? events : events.take(take)).doOnNext(this::print).blockLast();
      } else {
        print(rsocket.requestResponse(payload()).map(RegistryCli::text).block(Duration.ofSeconds(10)));
      }
      if (hold) {
        err.println("holding the connection open; Ctrl-C closes it");
        rsocket.onClose().block();
      }
      return 0;
    } catch (ApplicationErrorException e) {
      err.println(e.getMessage());
      return 1;
    } finally {
      rsocket.dispose();
    }
  }

  private Payload payload() {
    return ByteBufPayload.create(Unpooled.copiedBuffer(data, StandardCharsets.UTF_8),
        RouteMetadata.encode(ByteBufAllocator.DEFAULT, route));
  }

  private void print(String json) {
    out.println(json);
    out.flush();
  }

  private static String text(Payload payload) {
    try {
      return payload.getDataUtf8();
    } finally {
      payload.release();
    }
  }
}
