package io.reactiveregistry.loadtest.dsl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How a scenario's virtual users arrive, in Gatling's words. Open-model steps say when each new
 * user starts ({@link #atOnceUsers}, {@link #rampUsers}, {@link #constantUsersPerSec},
 * {@link #rampUsersPerSec}, {@link #stressPeakUsers}, {@link #nothingFor}); steps given together to
 * {@code Scenario.inject(...)} run one after the other. A closed-model step
 * ({@link #constantConcurrentUsers}, {@link #rampConcurrentUsers}) instead keeps a number of users
 * running: when one finishes its scenario another starts, until the step's end.
 *
 * <p>Every step's schedule is computed up front ({@link #offsets()}, {@link #concurrency}): what
 * a run will do is known, and tested, without running it.
 */
public final class Injection {
  private final String description;
  private final List<Duration> offsets;
  private final Duration duration;
  /** For a closed step: when each concurrent slot opens; empty for an open step. */
  private final List<Duration> slots;
  /** The rate of a constantUsersPerSec step that may still be {@link #randomized()}; 0 otherwise. */
  private final double randomizableRate;

  private Injection(String description, List<Duration> offsets, Duration duration, List<Duration> slots,
      double randomizableRate) {
    this.description = description;
    this.offsets = List.copyOf(offsets);
    this.duration = duration;
    this.slots = List.copyOf(slots);
    this.randomizableRate = randomizableRate;
  }

  private static Injection open(String description, List<Duration> offsets, Duration duration) {
    return new Injection(description, offsets, duration, List.of(), 0);
  }

  /** No new user for a while: {@code nothingFor(d)}. */
  public static Injection nothingFor(Duration duration) {
    return open("nothingFor(" + duration + ")", List.of(), duration);
  }

  /** {@code n} users, all at once. */
  public static Injection atOnceUsers(int n) {
    List<Duration> offsets = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      offsets.add(Duration.ZERO);
    }
    return open("atOnceUsers(" + n + ")", offsets, Duration.ZERO);
  }

  /** {@code n} users spread evenly over a duration: {@code rampUsers(n).during(d)}. */
  public static Ramp rampUsers(int n) {
    return new Ramp(n);
  }

  /** {@code rate} new users each second: {@code constantUsersPerSec(r).during(d)}, optionally {@code .randomized()}. */
  public static ConstantRate constantUsersPerSec(double rate) {
    return new ConstantRate(rate);
  }

  /** A rate that grows (or falls) linearly: {@code rampUsersPerSec(a).to(b).during(d)}. */
  public static RateRamp rampUsersPerSec(double from) {
    return new RateRamp(from, from);
  }

  /**
   * {@code n} users arriving along a smooth S-curve, slowly, then most of them mid-way, then slowly
   * again, all within the duration: {@code stressPeakUsers(n).during(d)} (the cumulative normal
   * distribution centred on the middle, 4 standard deviations each side).
   */
  public static StressPeak stressPeakUsers(int n) {
    return new StressPeak(n);
  }

  /** A closed model: {@code n} users running at every moment: {@code constantConcurrentUsers(n).during(d)}. */
  public static ConcurrentUsers constantConcurrentUsers(int n) {
    return new ConcurrentUsers(n, n);
  }

  /** A closed model whose concurrency moves linearly: {@code rampConcurrentUsers(a).to(b).during(d)}. */
  public static ConcurrentUsers rampConcurrentUsers(int from) {
    return new ConcurrentUsers(from, from);
  }

  public record Ramp(int users) {
    public Injection during(Duration duration) {
      List<Duration> offsets = new ArrayList<>(users);
      for (int i = 0; i < users; i++) {
        offsets.add(Duration.ofNanos(users == 1 ? 0 : duration.toNanos() * i / users));
      }
      return open("rampUsers(" + users + ").during(" + duration + ")", offsets, duration);
    }
  }

  public record ConstantRate(double perSecond) {
    public Injection during(Duration duration) {
      return new Randomizable(perSecond, duration, false).injection();
    }
  }

  /** {@code constantUsersPerSec(r).during(d)}, which may be made {@link #randomized()}. */
  public record Randomizable(double perSecond, Duration duration, boolean randomized) {
    Injection injection() {
      List<Duration> offsets = new ArrayList<>();
      if (randomized) {
        // A Poisson process: exponential gaps of mean 1/rate, with a fixed seed so that a run is
        // reproducible; the count varies around rate × duration.
        SplittableRandom random = new SplittableRandom(42);
        double at = 0;
        double end = duration.toNanos() / 1e9;
        while (true) {
          at += -Math.log(1 - random.nextDouble()) / perSecond;
          if (at >= end) {
            break;
          }
          offsets.add(Duration.ofNanos((long) (at * 1e9)));
        }
      } else {
        int users = (int) Math.floor(perSecond * duration.toNanos() / 1e9);
        for (int i = 0; i < users; i++) {
          offsets.add(Duration.ofNanos((long) (i * 1e9 / perSecond)));
        }
      }
      return new Injection("constantUsersPerSec(" + perSecond + ").during(" + duration + ")"
          + (randomized ? ".randomized()" : ""), offsets, duration, List.of(), randomized ? 0 : perSecond);
    }
  }

  public record RateRamp(double from, double to) {
    public RateRamp to(double rate) {
      return new RateRamp(from, rate);
    }

    /** Users at {@code t}: {@code N(t) = from·t + (to − from)·t²/(2d)}; user i starts where N(t) = i. */
    public Injection during(Duration duration) {
      double d = duration.toNanos() / 1e9;
      double slope = (to - from) / d;
      int users = (int) Math.floor((from + to) / 2 * d);
      List<Duration> offsets = new ArrayList<>(users);
      for (int i = 0; i < users; i++) {
        double t = slope == 0 ? i / from : (-from + Math.sqrt(from * from + 2 * slope * i)) / slope;
        offsets.add(Duration.ofNanos((long) (Math.min(t, d) * 1e9)));
      }
      return open("rampUsersPerSec(" + from + ").to(" + to + ").during(" + duration + ")", offsets, duration);
    }
  }

  public record StressPeak(int users) {
    public Injection during(Duration duration) {
      List<Duration> offsets = new ArrayList<>(users);
      long d = duration.toNanos();
      // User i starts where the normalized S-curve reaches (i + 0.5) / n: bisection on [0, d].
      for (int i = 0; i < users; i++) {
        double wanted = (i + 0.5) / users;
        double low = 0;
        double high = 1;
        for (int step = 0; step < 50; step++) {
          double mid = (low + high) / 2;
          if (sCurve(mid) < wanted) {
            low = mid;
          } else {
            high = mid;
          }
        }
        offsets.add(Duration.ofNanos((long) (low * d)));
      }
      return open("stressPeakUsers(" + users + ").during(" + duration + ")", offsets, duration);
    }

    /** The cumulative normal distribution of mean 0.5 and deviation 1/8, scaled to run from 0 at 0 to 1 at 1. */
    private static double sCurve(double x) {
      double at0 = normal(-4);
      return (normal((x - 0.5) * 8) - at0) / (normal(4) - at0);
    }

    private static double normal(double z) {
      return 0.5 * (1 + erf(z / Math.sqrt(2)));
    }

    /** Abramowitz and Stegun 7.1.26: within 1.5e-7. */
    private static double erf(double x) {
      double t = 1 / (1 + 0.3275911 * Math.abs(x));
      double y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t
          * Math.exp(-x * x);
      return x >= 0 ? y : -y;
    }
  }

  public record ConcurrentUsers(int from, int to) {
    public ConcurrentUsers to(int users) {
      return new ConcurrentUsers(from, users);
    }

    /**
     * Slot {@code k} (from 0) runs users one after another from the moment the wanted concurrency
     * reaches {@code k + 1} until the end: {@code from + (to − from)·t/d ≥ k + 1}.
     */
    public Injection during(Duration duration) {
      int most = Math.max(from, to);
      List<Duration> slots = new ArrayList<>(most);
      for (int k = 0; k < most; k++) {
        if (k < from) {
          slots.add(Duration.ZERO);
        } else {
          double share = (double) (k + 1 - from) / (to - from);
          slots.add(Duration.ofNanos((long) (share * duration.toNanos())));
        }
      }
      String name = from == to ? "constantConcurrentUsers(" + from + ")"
          : "rampConcurrentUsers(" + from + ").to(" + to + ")";
      return new Injection(name + ".during(" + duration + ")", List.of(), duration, slots, 0);
    }
  }

  /** {@code constantUsersPerSec(r).during(d).randomized()}: the arrivals of a Poisson process. */
  public Injection randomized() {
    if (randomizableRate == 0) {
      throw new IllegalStateException("randomized() follows constantUsersPerSec(r).during(d), not " + description);
    }
    return new Randomizable(randomizableRate, duration, true).injection();
  }

  /** Steps one after the other: each one's schedule starts where the previous one's ends. */
  public static Injection sequence(List<Injection> steps) {
    List<Duration> offsets = new ArrayList<>();
    List<Duration> slots = new ArrayList<>();
    Duration at = Duration.ZERO;
    List<String> names = new ArrayList<>();
    for (Injection step : steps) {
      if (step.closed() && !slots.isEmpty()) {
        throw new IllegalArgumentException("one closed-model step per population: give each its own population");
      }
      for (Duration offset : step.offsets) {
        offsets.add(at.plus(offset));
      }
      for (Duration slot : step.slots) {
        slots.add(at.plus(slot));
      }
      at = at.plus(step.duration);
      names.add(step.description);
    }
    return new Injection(String.join(", ", names), offsets, at, slots, 0);
  }

  /** When each open-model user starts, from the start of the run. */
  public List<Duration> offsets() {
    return offsets;
  }

  /** Open-model users; for a closed step, the most users it keeps running. */
  public int users() {
    return closed() ? slots.size() : offsets.size();
  }

  /** How long the step (or the steps) last. */
  public Duration duration() {
    return duration;
  }

  /** Whether it is a closed model: slots that each run users one after another until {@link #duration()}. */
  public boolean closed() {
    return !slots.isEmpty();
  }

  /** For a closed step: when each slot opens. */
  public List<Duration> slots() {
    return slots;
  }

  /** For a closed step: the users it wants running at {@code t}. */
  public int concurrency(Duration t) {
    if (t.compareTo(duration) >= 0) {
      return 0;
    }
    int open = 0;
    for (Duration slot : slots) {
      open += slot.compareTo(t) <= 0 ? 1 : 0;
    }
    return open;
  }

  @Override
  public String toString() {
    return description;
  }
}
