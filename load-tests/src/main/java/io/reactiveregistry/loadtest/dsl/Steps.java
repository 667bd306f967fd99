package io.reactiveregistry.loadtest.dsl;

import io.netty.buffer.ByteBuf;
import io.reactiveregistry.loadtest.engine.VirtualUser;
import io.reactiveregistry.loadtest.engine.VirtualUser.Registered;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.CatalogEvent;
import io.reactiveregistry.protocol.message.ServiceEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The steps a virtual user can run. Request names recorded in the metrics: {@code connect},
 * {@code register}, {@code heartbeat}, {@code query}, {@code update}, {@code deregister},
 * {@code subscribe} (request to first SNAPSHOT), {@code push} (a change sent to a subscriber
 * holding it), {@code close-to-remove} (an abrupt close to a subscriber seeing the REMOVE),
 * {@code redo} (a reconnect until registrations and subscriptions are back) and
 * {@code resubscribe} (a subscription again, resumed or fresh, to its first event).
 */
public final class Steps {
  /** Metadata key carrying the moment a change was sent, read back by subscribers. */
  public static final String SENT_AT = "lt.sentAt";

  private static final JsonCodec json = JsonCodec.json();

  private Steps() {}

  /** Opens the user's connection. */
  public static Step connect() {
    return VirtualUser::connect;
  }

  /** Connects to the member at {@code index} of {@code --target}'s list. */
  public static Step connectTo(int index) {
    return user -> user.connectToMember(index, false);
  }

  /** Connects to the members of {@code --target}'s list other than {@code index}, in turn. */
  public static Step connectAvoiding(int index) {
    return user -> user.connectToMember(index, true);
  }

  /** Registers {@code count} ephemeral instances of {@code service}, {@code concurrency} in flight at a time. */
  public static Step register(String service, int count, int concurrency) {
    return register(service, count, concurrency, true);
  }

  /** As above; persistent instances stay after the connection closes and are health-checked by the server. */
  public static Step register(String service, int count, int concurrency, boolean ephemeral) {
    return register(service, count, concurrency, ephemeral, "");
  }

  /**
   * As above, each instance with {@code metadata}: the members of a JSON object, without its
   * braces ({@code "health.check.enabled":"false"}), or empty for none.
   */
  public static Step register(String service, int count, int concurrency, boolean ephemeral, String metadata) {
    return register(service, count, concurrency, ephemeral, metadata, Duration.ZERO);
  }

  /**
   * As above, each of the {@code concurrency} slots waiting {@code pace} after each answer before
   * its next registration: a steady load below what the server can take, where zero sends as fast
   * as answers come. The wait is not part of a registration's time.
   */
  public static Step register(String service, int count, int concurrency, boolean ephemeral, String metadata,
      Duration pace) {
    Mono<Void> between = pace.isZero() ? Mono.empty() : Mono.delay(pace).then();
    return user -> Flux.range(0, count)
        .flatMap(i -> registerOne(user, service, 10_000 + i, metadata, ephemeral).then(between), concurrency)
        .then();
  }

  private static Mono<Void> registerOne(VirtualUser user, String service, int port, String metadata) {
    return registerOne(user, service, port, metadata, true);
  }

  private static Mono<Void> registerOne(VirtualUser user, String service, int port, String metadata,
      boolean ephemeral) {
    String body = "{\"service\":\"" + service + "\",\"ephemeral\":" + ephemeral + ",\"instance\":{\"ip\":\""
        + user.ip() + "\",\"port\":" + port + (metadata.isEmpty() ? "" : ",\"metadata\":{" + metadata + "}") + "}}";
    // The answer is not parsed: the instanceId is ip#port#cluster by contract, and the load
    // generator's CPU is better spent generating load.
    return user.send("register", "instance.register", body)
        .doOnSuccess(done -> user.remember(new Registered(service, port, user.ip() + "#" + port + "#DEFAULT")));
  }

  /**
   * Sends {@code count} heartbeats naming the user's instances in turn, in chunks of
   * {@code chunk}; after each chunk a round trip on the same connection proves the server has
   * processed it (frames of a connection are handled in order). Each heartbeat is recorded from
   * its send to that proof.
   */
  public static Step heartbeatBurst(int count, int chunk) {
    return user -> {
      List<String> bodies = heartbeatBodies(user);
      if (bodies.isEmpty()) {
        return Mono.error(new IllegalStateException("heartbeatBurst needs registered instances"));
      }
      return Flux.range(0, (count + chunk - 1) / chunk)
          .concatMap(c -> {
            int size = Math.min(chunk, count - c * chunk);
            long[] sentAt = new long[size];
            return Flux.range(0, size)
                .concatMap(i -> {
                  sentAt[i] = System.nanoTime();
                  return user.fire("instance.heartbeat", bodies.get((c * chunk + i) % bodies.size()));
                })
                .then(user.request("heartbeat-ack", "server.info", "{}"))
                .doOnNext(ack -> {
                  long now = System.nanoTime();
                  for (long sent : sentAt) {
                    user.metrics().record("heartbeat", sent, now, true);
                  }
                });
          })
          .then();
    };
  }

  /** Every {@code interval}, one heartbeat per registered instance, for {@code during}, acknowledged as above. */
  public static Step heartbeats(Duration interval, Duration during) {
    return user -> {
      List<String> bodies = heartbeatBodies(user);
      return ticks(interval, during.toNanos() / interval.toNanos())
          .concatMap(tick -> {
            long[] sent = new long[bodies.size()];
            Arrays.fill(sent, System.nanoTime());
            return acknowledged(user, sent, Flux.fromIterable(bodies)
                .concatMap(body -> user.fire("instance.heartbeat", body)).then());
          })
          .then();
    };
  }

  /**
   * Every {@code interval}, one heartbeat per registered instance, spread evenly over the interval
   * so that each arrives alone on its connection, as a real fleet's do; a round trip after each
   * round acknowledges it (as above). Users start at a random point of the first gap between two
   * heartbeats, so that they spread over time too.
   */
  public static Step spreadHeartbeats(Duration interval, Duration during) {
    return user -> {
      List<String> bodies = heartbeatBodies(user);
      if (bodies.isEmpty()) {
        return Mono.empty();
      }
      Duration gap = interval.dividedBy(bodies.size());
      Duration offset = Duration.ofNanos(ThreadLocalRandom.current().nextLong(Math.max(1, gap.toNanos())));
      return Mono.delay(offset).thenMany(ticks(interval, during.toNanos() / interval.toNanos()))
          .concatMap(round -> {
            long[] sent = new long[bodies.size()];
            return acknowledged(user, sent, Flux.range(0, bodies.size())
                .concatMap(i -> Mono.delay(i == 0 ? Duration.ZERO : gap).then(Mono.defer(() -> {
                  sent[i] = System.nanoTime();
                  return user.fire("instance.heartbeat", bodies.get(i));
                })))
                .then());
          })
          .then();
    };
  }

  /**
   * Sends {@code heartbeats}, then a round trip on the same connection that proves the server has
   * processed them; each heartbeat is recorded from when it was sent ({@code sent}) to that proof.
   */
  private static Mono<Void> acknowledged(VirtualUser user, long[] sent, Mono<Void> heartbeats) {
    return heartbeats.then(user.request("heartbeat-ack", "server.info", "{}"))
        .doOnNext(ack -> {
          long now = System.nanoTime();
          for (long at : sent) {
            user.metrics().record("heartbeat", at, now, true);
          }
        })
        .then();
  }

  /**
   * {@code count} ticks, one every {@code interval}. When a step takes longer than the interval,
   * the ticks that came due wait (they are few: at most {@code count}) rather than failing the
   * interval for lack of demand, as {@code Flux.interval} alone would with {@code concatMap}.
   */
  private static Flux<Long> ticks(Duration interval, long count) {
    return Flux.interval(Duration.ZERO, interval).take(count).onBackpressureBuffer();
  }

  private static List<String> heartbeatBodies(VirtualUser user) {
    List<String> bodies = new ArrayList<>();
    for (Registered instance : user.registered()) {
      bodies.add("{\"service\":\"" + instance.service() + "\",\"instance\":{\"ip\":\"" + user.ip() + "\",\"port\":"
          + instance.port() + "}}");
    }
    return bodies;
  }

  /** {@code count} queries of {@code service}, {@code concurrency} in flight (a closed model). */
  public static Step query(String service, int count, int concurrency) {
    String body = "{\"service\":\"" + service + "\"}";
    return user -> Flux.range(0, count)
        .flatMap(i -> user.send("query", "service.query", body), concurrency)
        .then();
  }

  /**
   * Queries at a constant rate for a duration (an open model). Latency is measured from each
   * request's intended start, so a slow server cannot hide its delays by slowing the load
   * (coordinated omission).
   */
  public static Step queryAtRate(String service, double perSecond, Duration during) {
    String body = "{\"service\":\"" + service + "\"}";
    return user -> {
      long start = System.nanoTime();
      long total = (long) (perSecond * during.toNanos() / 1e9);
      double gapNanos = 1e9 / perSecond;
      return Flux.interval(Duration.ofMillis(1))
          .map(tick -> Math.min(total, (long) ((tick + 1) * 1e6 / gapNanos)))
          .takeUntil(due -> due >= total)
          .scan(new long[] {0, 0}, (window, due) -> new long[] {window[1], due})
          .concatMapIterable(window -> {
            List<Long> intended = new ArrayList<>();
            for (long k = window[0]; k < window[1]; k++) {
              intended.add(start + (long) (k * gapNanos));
            }
            return intended;
          })
          .flatMap(intendedStart -> user.send("query", "service.query", body, intendedStart)
              .onErrorResume(e -> Mono.empty()), Integer.MAX_VALUE)
          .then();
    };
  }

  /**
   * Changes one instance {@code count} times, every {@code interval}: each registration carries
   * the moment it was sent, so subscribers can measure how long the change took to reach them.
   */
  public static Step publishUpdates(String service, int count, Duration interval) {
    // Up to 16 in flight: the rate is the interval's, not one round trip's (1,000/s needs answers
    // faster than 1 ms otherwise).
    return user -> ticks(interval, count)
        .flatMap(i -> {
          String body = "{\"service\":\"" + service + "\",\"instance\":{\"ip\":\"" + user.ip()
              + "\",\"port\":9999,\"metadata\":{\"" + SENT_AT + "\":\"" + System.nanoTime() + "\"}}}";
          return user.request("update", "instance.register", body);
        }, 16)
        .then();
  }

  /**
   * Reads the server's push-latency histogram now, as the start or the end of the run's timed
   * pushes ({@link io.reactiveregistry.loadtest.engine.PushWindow}); off the event loops.
   */
  public static Step markTimedPushes(boolean start) {
    return user -> Mono.fromRunnable(() -> user.pushWindow().mark(start)).subscribeOn(Schedulers.boundedElastic())
        .then();
  }

  /**
   * Subscribes to {@code service} and holds the stream for {@code hold} (or until the run's timed
   * pushes have ended, in a run that marks them: {@link #markTimedPushes}), recording the time to
   * the first SNAPSHOT, the push latency of changes sent by {@link #publishUpdates}, and the
   * close-to-REMOVE latency of instances whose connection was closed abruptly.
   */
  public static Step subscribe(String service, Duration hold) {
    String body = "{\"service\":\"" + service + "\"}";
    return user -> {
      long start = System.nanoTime();
      boolean[] first = {true};
      return user.stream("service.subscribe", body)
          .doOnNext(text -> {
            long now = System.nanoTime();
            if (first[0]) {
              first[0] = false;
              user.metrics().record("subscribe", start, now, true);
              return;
            }
            observe(user, service, json.decode(text, ServiceEvent.class), now);
          })
          .take(hold)
          .takeUntilOther(user.pushWindow().ended())
          .then();
    };
  }

  /**
   * As {@link #subscribe}, for fan-outs too wide for the RSocket client on the generator's cores:
   * the subscription on a connection of its own, read frame by frame ({@link VirtualUser#leanStream}),
   * each UPSERT's send time read from its bytes without parsing the event. Records {@code subscribe}
   * and {@code push} as {@link #subscribe} does; needs no {@code connect()}.
   */
  public static Step subscribeLean(String service, Duration hold) {
    String body = "{\"service\":\"" + service + "\"}";
    return user -> {
      long start = System.nanoTime();
      boolean[] first = {true};
      return user.leanStream("service.subscribe", body, hold, (event, now) -> {
        if (first[0]) {
          first[0] = false;
          user.metrics().record("subscribe", start, now, true);
          return;
        }
        long sent = sentAt(event);
        if (sent >= 0) {
          user.metrics().record("push", sent, now, true);
        }
      }).takeUntilOther(user.pushWindow().ended());
    };
  }

  private static final byte[] UPSERT_START = ("{\"type\":\"" + ServiceEvent.UPSERT + "\"")
      .getBytes(StandardCharsets.UTF_8);
  private static final byte[] SENT_AT_KEY = ("\"" + SENT_AT + "\":\"").getBytes(StandardCharsets.UTF_8);
  /** Each lean event loop's copy of the event being read: one copy, then plain array scans. */
  private static final ThreadLocal<byte[]> EVENT_BYTES = ThreadLocal.withInitial(() -> new byte[1024]);

  /**
   * The send time an UPSERT of {@link #publishUpdates} carries, read from the event's JSON bytes as
   * the server writes them (the type first); -1 for any other event. The key is looked for from the
   * end, where the instance's metadata is: a fraction of the bytes {@code ByteBufUtil.indexOf}
   * walked from the start, at 40 % of the generator's CPU.
   */
  static long sentAt(ByteBuf event) {
    int length = event.readableBytes();
    if (length < UPSERT_START.length) {
      return -1;
    }
    byte[] bytes = EVENT_BYTES.get();
    if (bytes.length < length) {
      bytes = new byte[Math.max(length, 2 * bytes.length)];
      EVENT_BYTES.set(bytes);
    }
    event.getBytes(event.readerIndex(), bytes, 0, length);
    if (!Arrays.equals(bytes, 0, UPSERT_START.length, UPSERT_START, 0, UPSERT_START.length)) {
      return -1;
    }
    for (int at = length - SENT_AT_KEY.length; at >= UPSERT_START.length; at--) {
      if (Arrays.equals(bytes, at, at + SENT_AT_KEY.length, SENT_AT_KEY, 0, SENT_AT_KEY.length)) {
        return digitsUntilQuote(bytes, at + SENT_AT_KEY.length, length);
      }
    }
    return -1;
  }

  /** The whole number written from {@code from} up to a closing quote; -1 if anything else is there. */
  private static long digitsUntilQuote(byte[] bytes, int from, int end) {
    long value = 0;
    for (int i = from; i < end; i++) {
      byte b = bytes[i];
      if (b == '"') {
        return i == from ? -1 : value;
      }
      if (b < '0' || b > '9') {
        return -1;
      }
      value = value * 10 + (b - '0');
    }
    return -1;
  }

  /**
   * When each service was last changed by {@link #changeServices}: the catalog subscribers of the
   * same run time each UPSERT from it (one load generator process, one clock).
   */
  private static final Map<String, Changed> CHANGED_AT = new ConcurrentHashMap<>();

  /** A service's last change: when, and the instance count it leads to (what its UPSERT shows). */
  private record Changed(long at, int instanceCount) {}

  /**
   * The catalog runs' instances send no heartbeats, and must not turn unhealthy or go meanwhile
   * (each would be a catalog change of its own): timings of ten minutes.
   */
  private static final String LONG_LIVED = "\"preserved.heart.beat.timeout\":\"600000\","
      + "\"preserved.ip.delete.timeout\":\"600000\"";

  /**
   * Registers one instance in each of {@code services} services, {@code prefix-<n>} for n from
   * {@code first.getAndAdd(services)} on (users of one scenario share {@code first}, each taking
   * the next range), {@code concurrency} at a time.
   */
  public static Step registerAcross(String prefix, AtomicInteger first, int services, int concurrency) {
    return user -> Mono.defer(() -> {
      int from = first.getAndAdd(services);
      return Flux.range(from, services).flatMap(n -> registerOne(user, prefix + "-" + n, 10_000, LONG_LIVED),
          concurrency).then();
    });
  }

  /**
   * Subscribes to the catalog of the services named {@code prefix...} and holds the stream for
   * {@code hold}, recording {@code catalog-subscribe} to its SNAPSHOT and {@code catalog-push}
   * from a change made by {@link #changeServices} to the UPSERT that shows it (its instance count).
   */
  public static Step subscribeCatalog(String prefix, Duration hold) {
    String body = "{\"prefix\":\"" + prefix + "\"}";
    return user -> {
      long start = System.nanoTime();
      boolean[] first = {true};
      return user.stream("catalog.subscribe", body)
          .doOnNext(text -> {
            long now = System.nanoTime();
            if (first[0]) {
              first[0] = false;
              user.metrics().record("catalog-subscribe", start, now, true);
              return;
            }
            CatalogEvent event = json.decode(text, CatalogEvent.class);
            Changed changed = CatalogEvent.UPSERT.equals(event.type()) ? CHANGED_AT.get(event.service().service())
                : null;
            if (changed != null && changed.instanceCount() == event.service().instanceCount()) {
              user.metrics().record("catalog-push", changed.at(), now, true);
            }
          })
          .take(hold)
          .then();
    };
  }

  /**
   * Makes {@code count} catalog changes, one every {@code interval} (up to 16 in flight): each
   * adds a second instance to the next of {@code services} services {@code prefix-<n>}, or, on
   * the next round over them, removes it, so each changes its instance count. Recorded as
   * {@code change}.
   */
  public static Step changeServices(String prefix, int services, int count, Duration interval) {
    return user -> ticks(interval, count)
        .flatMap(i -> {
          String service = prefix + "-" + (i % services);
          boolean add = (i / services) % 2 == 0;
          String instance = "\"instance\":{\"ip\":\"" + user.ip() + "\",\"port\":9999"
              + (add ? ",\"metadata\":{" + LONG_LIVED + "}" : "") + "}";
          CHANGED_AT.put(service, new Changed(System.nanoTime(), add ? 2 : 1));
          return user.request("change", add ? "instance.register" : "instance.deregister",
              "{\"service\":\"" + service + "\"," + instance + "}");
        }, 16)
        .then();
  }

  /**
   * Subscribes to {@code service} and keeps the revision and node of its first SNAPSHOT; then
   * {@code rounds} times stays away for {@code gap} and subscribes again — resuming from that
   * revision when {@code resume}, else afresh — recording {@code resubscribe} from the request to
   * the stream's first event (a resume that gets a SNAPSHOT instead counts as failed).
   */
  public static Step resubscribe(String service, int rounds, Duration gap, boolean resume) {
    String fresh = "{\"service\":\"" + service + "\"}";
    return user -> user.stream("service.subscribe", fresh).next().flatMap(first -> {
      ServiceEvent snapshot = json.decode(first, ServiceEvent.class);
      String again = !resume ? fresh : "{\"service\":\"" + service + "\",\"sinceRevision\":" + snapshot.revision()
          + ",\"node\":\"" + snapshot.node() + "\"}";
      return Flux.range(0, rounds)
          .concatMap(round -> Mono.delay(gap).then(Mono.defer(() -> {
            long start = System.nanoTime();
            return user.stream("service.subscribe", again).next()
                .doOnNext(text -> user.metrics().record("resubscribe", start, System.nanoTime(),
                    !resume || ServiceEvent.RESUMED.equals(json.decode(text, ServiceEvent.class).type())));
          })))
          .then();
    });
  }

  private static void observe(VirtualUser user, String service, ServiceEvent event, long now) {
    if (ServiceEvent.UPSERT.equals(event.type()) && event.instance().metadata() != null) {
      String sent = event.instance().metadata().get(SENT_AT);
      if (sent != null) {
        user.metrics().record("push", Long.parseLong(sent), now, true);
      }
    } else if (ServiceEvent.REMOVE.equals(event.type())) {
      Long closedAt = user.closeMarks().get(service + "/" + event.instanceId());
      if (closedAt != null) {
        user.metrics().record("close-to-remove", closedAt, now, true);
      }
    }
  }

  /**
   * Waits until {@code count} successful {@code request}s have been recorded by all users together
   * (say, every subscriber has its first SNAPSHOT), checking every 10 ms; fails after {@code max}.
   * A scenario that needs others to be ready waits for exactly that, not for a guessed pause.
   */
  public static Step awaitOk(String request, long count, Duration max) {
    return user -> Flux.interval(Duration.ZERO, Duration.ofMillis(10))
        .filter(tick -> user.metrics().okCount(request) >= count)
        .next()
        .timeout(max, Mono.error(() -> new IllegalStateException("fewer than " + count + " successful " + request
            + " within " + max + " (" + user.metrics().okCount(request) + ")")))
        .then();
  }

  public static Step pause(Duration duration) {
    return user -> Mono.delay(duration).then();
  }

  /** A pause of uniformly random length between {@code min} and {@code max}. */
  public static Step pause(Duration min, Duration max) {
    return user -> Mono.defer(() -> Mono.delay(Duration.ofNanos(
        ThreadLocalRandom.current().nextLong(min.toNanos(), max.toNanos() + 1)))).then();
  }

  /** A pause of exponentially distributed length: think times of independent arrivals. */
  public static Step pauseExponential(Duration mean) {
    return user -> Mono.defer(() -> Mono.delay(Duration.ofNanos((long) (-Math.log(1 - ThreadLocalRandom.current()
        .nextDouble()) * mean.toNanos())))).then();
  }

  /** A pause of normally distributed length (never below zero). */
  public static Step pauseNormal(Duration mean, Duration standardDeviation) {
    return user -> Mono.defer(() -> Mono.delay(Duration.ofNanos(Math.max(0, (long) (mean.toNanos()
        + ThreadLocalRandom.current().nextGaussian() * standardDeviation.toNanos()))))).then();
  }

  /**
   * Steps run one after the other and timed together as {@code group:<name>}, Gatling's groups:
   * assertions name the group like a request ({@code percentile("group:checkout", 95)}); the
   * group fails when one of its steps does.
   */
  public static Step group(String name, Step... steps) {
    return user -> Mono.defer(() -> {
      long start = System.nanoTime();
      return Flux.fromArray(steps).concatMap(step -> step.run(user)).then()
          .doOnSuccess(done -> user.metrics().record("group:" + name, start, System.nanoTime(), true))
          .doOnError(error -> user.metrics().record("group:" + name, start, System.nanoTime(), false));
    });
  }

  /**
   * Puts the feeder's next record in the user's session, for the {@code ...Fed} steps. The first
   * take reads the feeder's file, on a thread that may block rather than the user's event loop.
   */
  public static Step feed(Feeder feeder) {
    return user -> {
      Mono<Void> take = Mono.fromRunnable(() -> user.session().put(FED, feeder.next()));
      return feeder.loaded() ? take : take.subscribeOn(Schedulers.boundedElastic());
    };
  }

  /**
   * Registers the instance the fed record describes: {@code service}, {@code ip}, {@code port},
   * and optionally {@code cluster}, {@code weight} and {@code metadata.<key>}.
   */
  public static Step registerFed() {
    return user -> Mono.defer(() -> {
      Map<String, String> record = fed(user);
      StringBuilder metadata = new StringBuilder();
      record.forEach((key, value) -> {
        if (key.startsWith("metadata.")) {
          metadata.append(metadata.length() == 0 ? "" : ",").append(quoted(key.substring(9))).append(':')
              .append(quoted(value));
        }
      });
      String body = "{\"service\":" + quoted(required(record, "service")) + ",\"instance\":{\"ip\":"
          + quoted(required(record, "ip")) + ",\"port\":" + Integer.parseInt(required(record, "port"))
          + (record.containsKey("cluster") ? ",\"cluster\":" + quoted(record.get("cluster")) : "")
          + (record.containsKey("weight") ? ",\"weight\":" + Double.parseDouble(record.get("weight")) : "")
          + ",\"metadata\":{" + metadata + "}}}";
      return user.send("register", "instance.register", body);
    });
  }

  /** Queries the fed record's {@code service}, failing the request when an answer fails a check. */
  public static Step queryFed(Check... checks) {
    return user -> Mono.defer(() -> queryChecked(required(fed(user), "service"), checks).run(user));
  }

  /** Queries {@code service} once, failing the request when its answer fails a check. */
  public static Step queryChecked(String service, Check... checks) {
    return user -> user.request("query", "service.query", "{\"service\":" + quoted(service) + "}", System.nanoTime(),
        answer -> Check.all(answer, user, checks)).then();
  }

  private static final String FED = "lt.fed";

  @SuppressWarnings("unchecked")
  private static Map<String, String> fed(VirtualUser user) {
    Object record = user.session().get(FED);
    if (record == null) {
      throw new IllegalStateException("no fed record: put a feed(feeder) step before this one");
    }
    return (Map<String, String>) record;
  }

  private static String required(Map<String, String> record, String field) {
    String value = record.get(field);
    if (value == null || value.isEmpty()) {
      throw new IllegalStateException("the fed record " + record + " has no " + field);
    }
    return value;
  }

  private static String quoted(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Deregisters every instance the user registered. */
  public static Step deregisterAll(int concurrency) {
    return user -> Flux.fromIterable(List.copyOf(user.registered()))
        .flatMap(instance -> user.request("deregister", "instance.deregister", "{\"service\":\"" + instance.service()
            + "\",\"instance\":{\"ip\":\"" + user.ip() + "\",\"port\":" + instance.port() + "}}"), concurrency)
        .then(Mono.fromRunnable(() -> user.registered().clear()));
  }

  /** Drops the connection without deregistering, like a crashed process. */
  public static Step closeAbruptly() {
    return user -> Mono.fromRunnable(user::closeAbruptly);
  }

  /**
   * A reconnect storm from the client's side: the connection drops, the user reconnects at once
   * and registers again everything it had (the "redo" of a real client), then subscribes again to
   * {@code service}. Recorded as {@code redo} from the drop to the first SNAPSHOT of the new
   * subscription.
   */
  public static Step reconnectAndRedo(String service) {
    return user -> {
      List<Registered> had = List.copyOf(user.registered());
      return Mono.defer(() -> {
        long start = System.nanoTime();
        user.closeAbruptly();
        user.registered().clear();
        return user.connect()
            .thenMany(Flux.fromIterable(had).concatMap(i -> registerOne(user, i.service(), i.port(), "")))
            .then(user.stream("service.subscribe", "{\"service\":\"" + service + "\"}").next())
            .doOnNext(snapshot -> user.metrics().record("redo", start, System.nanoTime(), true))
            .doOnError(e -> user.metrics().record("redo", start, System.nanoTime(), false))
            .then();
      });
    };
  }
}
