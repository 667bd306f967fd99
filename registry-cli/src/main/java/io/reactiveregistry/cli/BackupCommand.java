package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code registry-cli backup <file>}: the durable state, copied while the registry serves, into a
 * file that {@code --restore-from} starts a new server or cluster from.
 */
@Command(name = "backup", mixinStandardHelpOptions = true,
    description = "Writes a backup of the durable state (service definitions, persistent instances, overrides) to "
        + "<file>, consistent as of the request, while the registry serves writes; start a new server or cluster "
        + "from it with --restore-from <file> (admin permission on every namespace).")
final class BackupCommand implements Callable<Integer> {
  @ParentCommand
  RegistryCli cli;

  @Parameters(index = "0", paramLabel = "<file>", description = "Where to write the backup (replaced if it exists)")
  Path file;

  /** The header's fields this command reports and checks. */
  record Header(long revision, long index, int values, String sha256) {}

  @Override
  public Integer call() {
    return cli.run(session -> {
      Path absolute = file.toAbsolutePath();
      Path partial = absolute.resolveSibling(absolute.getFileName() + ".partial");
      Received received = new Received();
      try {
        receive(session, partial, received);
      } finally {
        if (!received.done) {
          Files.deleteIfExists(partial); // refused, or the connection lost: no file that looks like a backup
        }
      }
      Header header = JsonCodec.json().decode(received.header.toString(StandardCharsets.UTF_8).trim(), Header.class);
      String actual = HexFormat.of().formatHex(received.body.digest());
      if (!actual.equals(header.sha256())) {
        Files.deleteIfExists(partial);
        throw new IllegalStateException("the backup arrived damaged (SHA-256 " + actual + ", the server's "
            + header.sha256() + "); nothing was written, run the command again");
      }
      Files.move(partial, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      cli.print("backup of " + header.values() + " durable values at revision " + header.revision() + " written to "
          + absolute + " (" + received.bytes + " bytes, sha256 " + header.sha256() + ")");
    });
  }

  private static void receive(Session session, Path partial, Received received) throws IOException {
    try (OutputStream out = Files.newOutputStream(partial)) {
      session.bytes(Route.ADMIN_BACKUP.routeName(), "{}").doOnNext(piece -> {
        try {
          out.write(piece);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        received.add(piece);
      }).blockLast();
    }
    received.done = true;
  }

  /** The header's line, and the checksum of what follows it (the header names that checksum). */
  private static final class Received {
    final ByteArrayOutputStream header = new ByteArrayOutputStream();
    final MessageDigest body = sha256();
    boolean headerDone;
    boolean done;
    long bytes;

    void add(byte[] piece) {
      bytes += piece.length;
      int from = 0;
      if (!headerDone) {
        while (from < piece.length && piece[from] != '\n') {
          from++;
        }
        header.write(piece, 0, from);
        if (from < piece.length) {
          headerDone = true;
          from++; // the newline ends the header
        }
      }
      body.update(piece, from, piece.length - from);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
