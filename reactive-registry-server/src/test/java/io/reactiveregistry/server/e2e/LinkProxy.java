package io.reactiveregistry.server.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on loopback (between two cluster members, or a client and its server), which a
 * test can partition or cut: while
 * paused, nothing it holds is forwarded either way (the bytes wait, as on a link that went silent),
 * and connections opened meanwhile are accepted but carry nothing; {@link #heal} closes what was
 * held (both ends see it end, as after a real partition) and forwards again.
 */
public final class LinkProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean paused;

  /** Forwards from {@code port} (0: a free one, see {@link #port()}) to {@code target} on loopback. */
  public LinkProxy(int port, int target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket();
    listener.setReuseAddress(true);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    Thread acceptor = new Thread(this::accept, "link-proxy-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  void pause() {
    paused = true;
  }

  /** Ends every connection it carries now (both ends see it end); new ones are forwarded. */
  public void cut() {
    heal();
  }

  void heal() {
    for (Socket socket : sockets) {
      close(socket);
    }
    paused = false;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket inbound = listener.accept();
        Socket outbound = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(inbound);
        sockets.add(outbound);
        pump(inbound, outbound);
        pump(outbound, inbound);
      } catch (IOException closedOrRefused) {
        if (listener.isClosed()) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        while (true) {
          while (paused && !from.isClosed()) {
            Thread.sleep(20); // the partition: nothing read, nothing forwarded
          }
          int read = in.read(buffer);
          if (read < 0) {
            break;
          }
          if (paused) {
            continue; // read just before the partition began: lost with it
          }
          out.write(buffer, 0, read);
          out.flush();
        }
      } catch (IOException | InterruptedException ended) {
        // one side closed
      } finally {
        close(from);
        close(to);
      }
    }, "link-proxy-pump");
    thread.setDaemon(true);
    thread.start();
  }

  private void close(Socket socket) {
    sockets.remove(socket);
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    heal();
  }
}
