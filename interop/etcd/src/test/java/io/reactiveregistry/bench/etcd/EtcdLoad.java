package io.reactiveregistry.bench.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The etcd half of {@code load-tests/bench/etcd-side-by-side.sh}: etcd's own Java client (jetcd)
 * doing to a real etcd server what the load kit's {@code LoneRegistrations} and
 * {@code SubscriptionFanOut} do to this registry, with etcd's equivalents — an ephemeral
 * registration is a key written on its client's lease (the lease is etcd's session: the keys go
 * when it expires), a subscriber is a watch on the service's key prefix.
 *
 * <pre>
 *   EtcdLoad registrations &lt;endpoint&gt; &lt;etcd pid&gt; &lt;clients&gt; &lt;registrations per client&gt;
 *   EtcdLoad fanout &lt;endpoint&gt; &lt;etcd pid&gt; &lt;watchers&gt; &lt;changes&gt; &lt;interval ms&gt;
 * </pre>
 *
 * <p>Prints the server's CPU over the measured phase (read from {@code /proc/<pid>/stat}) per unit
 * of work, and for the fan-out the latency from a change's put to each watcher's event.
 */
public final class EtcdLoad {
  private static final String PREFIX = "/registry/ephemeral/public/DEFAULT_GROUP/";
  /** etcd's keys go when their lease expires; long enough that none does during a run. */
  private static final long LEASE_TTL_SECONDS = 300;

  private EtcdLoad() {}

  public static void main(String[] args) throws Exception {
    String endpoint = args[1];
    long pid = Long.parseLong(args[2]);
    switch (args[0]) {
      case "registrations" -> registrations(endpoint, pid, Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "fanout" -> fanOut(endpoint, pid, Integer.parseInt(args[3]), Integer.parseInt(args[4]),
          Integer.parseInt(args[5]));
      default -> throw new IllegalArgumentException("unknown shape " + args[0] + ": registrations or fanout");
    }
    System.exit(0); // jetcd's Vert.x threads are not daemons
  }

  /**
   * {@code clients} connections, each with one registration in flight: a put of an instance's JSON
   * under its service's prefix, on the client's lease, the next sent when the last is acknowledged.
   */
  static void registrations(String endpoint, long pid, int clients, int perClient) throws Exception {
    String run = Long.toString(System.nanoTime(), 36);
    List<Client> connections = new ArrayList<>();
    List<Long> leases = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      Client client = Client.builder().endpoints(endpoint).build();
      connections.add(client);
      leases.add(client.getLeaseClient().grant(LEASE_TTL_SECONDS).get(10, TimeUnit.SECONDS).getID());
    }
    double cpuBefore = ProcessCpu.seconds(pid);
    long start = System.nanoTime();
    List<CompletableFuture<Void>> done = new ArrayList<>();
    AtomicInteger failed = new AtomicInteger();
    for (int c = 0; c < clients; c++) {
      KV kv = connections.get(c).getKVClient();
      PutOption onLease = PutOption.builder().withLeaseId(leases.get(c)).build();
      String service = PREFIX + "lone-" + run + "-" + c + "/";
      String ip = "127.0." + (c / 250) + "." + (c % 250 + 1);
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (int i = 0; i < perClient; i++) {
        int port = 10_000 + i;
        chain = chain.thenCompose(ignored -> kv.put(bytes(service + ip + "#" + port), bytes(instanceJson(ip, port)),
                onLease)
            .handle((answer, error) -> {
              if (error != null) {
                failed.incrementAndGet();
              }
              return null;
            }));
      }
      done.add(chain);
    }
    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpu = ProcessCpu.seconds(pid) - cpuBefore;
    long total = (long) clients * perClient;
    System.out.printf(Locale.ROOT, "etcd registrations: %d in %.2f s (%.0f/s), %d failed; server CPU %.2f s: "
        + "%.1f µs per registration%n", total, seconds, total / seconds, failed.get(), cpu, cpu * 1e6 / total);
    // The keys go with their leases, as the registry's instances go when the kit's connections
    // close: outside the measured phase, and before the next run rather than 5 minutes into it.
    for (int c = 0; c < clients; c++) {
      connections.get(c).getLeaseClient().revoke(leases.get(c)).get(1, TimeUnit.MINUTES);
      connections.get(c).close();
    }
  }

  /**
   * {@code watchers} connections, each watching one service's prefix; a publisher on its own
   * connection puts a change to one of the service's instances every {@code intervalMs}, its send
   * time in the value; each watcher's event is timed against it.
   */
  static void fanOut(String endpoint, long pid, int watchers, int changes, int intervalMs) throws Exception {
    String service = PREFIX + "fanout-" + Long.toString(System.nanoTime(), 36) + "/";
    ByteSequence prefix = bytes(service);
    WatchOption onPrefix = WatchOption.builder().isPrefix(true).build();
    long[] latencies = new long[watchers * changes];
    AtomicInteger received = new AtomicInteger();
    CountDownLatch all = new CountDownLatch(watchers * changes);
    // A put before the timed ones: every watch is established once each watcher has seen one.
    CountDownLatch ready = new CountDownLatch(watchers);
    List<Client> connections = new ArrayList<>();
    List<Watch.Watcher> watches = new ArrayList<>();
    for (int w = 0; w < watchers; w++) {
      Client client = Client.builder().endpoints(endpoint).build();
      connections.add(client);
      AtomicBoolean watching = new AtomicBoolean();
      watches.add(client.getWatchClient().watch(prefix, onPrefix, response -> {
        long now = System.nanoTime();
        for (WatchEvent event : response.getEvents()) {
          if (event.getEventType() != WatchEvent.EventType.PUT) {
            continue;
          }
          String value = event.getKeyValue().getValue().toString(StandardCharsets.UTF_8);
          if (!value.contains("\"sentAt\":")) {
            if (watching.compareAndSet(false, true)) {
              ready.countDown();
            }
            continue;
          }
          int slot = received.getAndIncrement();
          if (slot < latencies.length) {
            latencies[slot] = now - sentAt(value);
          }
          all.countDown();
        }
      }));
    }
    Client publisher = Client.builder().endpoints(endpoint).build();
    long lease = publisher.getLeaseClient().grant(LEASE_TTL_SECONDS).get(10, TimeUnit.SECONDS).getID();
    PutOption onLease = PutOption.builder().withLeaseId(lease).build();
    ByteSequence key = bytes(service + "127.0.0.1#9000");
    KV kv = publisher.getKVClient();
    while (!ready.await(200, TimeUnit.MILLISECONDS)) {
      kv.put(key, bytes(instanceJson("127.0.0.1", 9000)), onLease).get(10, TimeUnit.SECONDS);
    }
    Thread.sleep(500); // let the warm-up's events drain
    double cpuBefore = ProcessCpu.seconds(pid);
    long start = System.nanoTime();
    for (int i = 0; i < changes; i++) {
      long due = start + TimeUnit.MILLISECONDS.toNanos((long) i * intervalMs);
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      String instance = instanceJson("127.0.0.1", 9000);
      String timed = instance.substring(0, instance.length() - 1) + ",\"sentAt\":" + System.nanoTime() + "}";
      kv.put(key, bytes(timed), onLease);
    }
    boolean complete = all.await(60, TimeUnit.SECONDS);
    double cpu = ProcessCpu.seconds(pid) - cpuBefore;
    int count = Math.min(received.get(), latencies.length);
    long[] sorted = Arrays.copyOf(latencies, count);
    Arrays.sort(sorted);
    System.out.printf(Locale.ROOT, "etcd push %d of %d delivered%s: p50 %.2f ms, p99 %.2f ms, max %.2f ms; "
            + "server CPU %.2f s: %.1f µs per push%n", count, latencies.length, complete ? "" : " (timed out)",
        percentile(sorted, 0.50), percentile(sorted, 0.99), percentile(sorted, 1.0), cpu, cpu * 1e6 / count);
    for (Watch.Watcher watch : watches) {
      watch.close();
    }
    for (Client client : connections) {
      client.close();
    }
    publisher.getLeaseClient().revoke(lease).get(1, TimeUnit.MINUTES);
    publisher.close();
  }

  /** An instance as this registry keeps it, in JSON: what a registry on etcd would store. */
  static String instanceJson(String ip, int port) {
    return "{\"ip\":\"" + ip + "\",\"port\":" + port + ",\"weight\":1.0,\"healthy\":true,\"enabled\":true,"
        + "\"ephemeral\":true,\"cluster\":\"DEFAULT\",\"metadata\":{}}";
  }

  static long sentAt(String value) {
    int at = value.lastIndexOf("\"sentAt\":");
    if (at < 0) {
      throw new IllegalArgumentException("no sentAt in " + value);
    }
    int from = at + "\"sentAt\":".length();
    int to = from;
    while (to < value.length() && (Character.isDigit(value.charAt(to)) || value.charAt(to) == '-')) {
      to++;
    }
    return Long.parseLong(value.substring(from, to));
  }

  static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
    return sorted[Math.max(0, index)] / 1e6;
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
