package io.reactiveregistry.server.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSessionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * The server's TLS context, made from its PEM files and made again when they change, so that a
 * renewed certificate is served without a restart: each new connection's handshake uses the
 * context as it is then (open connections keep theirs). Files that cannot be used on a change
 * are logged and the context before them stays.
 */
public final class ReloadingSslContext extends SslContext {
  private static final Logger log = LoggerFactory.getLogger(ReloadingSslContext.class);

  private final TlsFiles files;
  private volatile SslContext current;
  private volatile byte[] stamp;

  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  private ReloadingSslContext(TlsFiles files, SslContext first, byte[] stamp) {
    this.files = files;
    this.current = first;
    this.stamp = stamp;
  }

  /** Reads the files; files that cannot make a TLS context are refused naming the reason. Blocking. */
  public static ReloadingSslContext read(TlsFiles files) throws IOException {
    byte[][] contents = contents(files);
    return new ReloadingSslContext(files, build(files, contents), digest(contents));
  }

  /**
   * Runs {@code listener} after each reload (on the polling thread): for a transport that builds
   * its TLS from the same files its own way (the Nacos door's gRPC port).
   */
  public void onReload(Runnable listener) {
    listeners.add(listener);
  }

  /** Polls the files every {@code every} on {@code scheduler} (one that may block). */
  public Disposable watch(Duration every, Scheduler scheduler) {
    return Flux.interval(every, every, scheduler).subscribe(tick -> reloadIfChanged());
  }

  /** Makes the context again if any file changed. Blocking: file I/O. */
  public boolean reloadIfChanged() {
    try {
      byte[][] contents = contents(files);
      byte[] now = digest(contents);
      if (MessageDigest.isEqual(now, stamp)) {
        return false;
      }
      stamp = now; // a broken set of files is reported once, not at every poll
      current = build(files, contents);
      log.info("TLS certificate and key read again from {}", files.certificate());
      listeners.forEach(Runnable::run);
      return true;
    } catch (IOException | IllegalArgumentException e) {
      log.error("TLS files refused, the certificate before stays in use: {}", e.getMessage());
      return false;
    }
  }

  private static byte[][] contents(TlsFiles files) throws IOException {
    return new byte[][] {Files.readAllBytes(files.certificate()), Files.readAllBytes(files.key()),
        files.clientCa() == null ? new byte[0] : Files.readAllBytes(files.clientCa())};
  }

  private static SslContext build(TlsFiles files, byte[][] contents) throws IOException {
    try {
      SslContextBuilder builder = SslContextBuilder.forServer(new ByteArrayInputStream(contents[0]),
          new ByteArrayInputStream(contents[1]));
      if (files.clientCa() != null) {
        builder.trustManager(new ByteArrayInputStream(contents[2])).clientAuth(ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException("TLS certificate " + files.certificate() + " and key " + files.key()
          + (files.clientCa() == null ? "" : " and client CA " + files.clientCa())
          + " do not make a TLS context (PEM certificate chain, PKCS#8 key): " + e.getMessage(), e);
    }
  }

  private static byte[] digest(byte[][] contents) {
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      for (byte[] content : contents) {
        sha256.update(content);
        sha256.update((byte) 0);
      }
      return sha256.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  @Override
  public boolean isClient() {
    return false;
  }

  @Override
  public List<String> cipherSuites() {
    return current.cipherSuites();
  }

  @Override
  @SuppressWarnings("deprecation")
  public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
    return current.applicationProtocolNegotiator();
  }

  @Override
  public SSLEngine newEngine(ByteBufAllocator alloc) {
    return current.newEngine(alloc);
  }

  @Override
  public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
    return current.newEngine(alloc, peerHost, peerPort);
  }

  @Override
  public SSLSessionContext sessionContext() {
    return current.sessionContext();
  }
}
