package io.reactiveregistry.loadtest.dsl;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** When the virtual users of a scenario start, as offsets from the start of the run. */
public final class Injection {
  private final String description;
  private final List<Duration> offsets;

  private Injection(String description, List<Duration> offsets) {
    this.description = description;
    this.offsets = List.copyOf(offsets);
  }

  /** {@code n} users, all at once. */
  public static Injection atOnceUsers(int n) {
    List<Duration> offsets = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      offsets.add(Duration.ZERO);
    }
    return new Injection("atOnceUsers(" + n + ")", offsets);
  }

  /** {@code n} users spread evenly over a duration: {@code rampUsers(n).during(d)}. */
  public static Ramp rampUsers(int n) {
    return new Ramp(n);
  }

  /** An open model: {@code rate} new users each second: {@code constantUsersPerSec(r).during(d)}. */
  public static ConstantRate constantUsersPerSec(double rate) {
    return new ConstantRate(rate);
  }

  public record Ramp(int users) {
    public Injection during(Duration duration) {
      List<Duration> offsets = new ArrayList<>(users);
      for (int i = 0; i < users; i++) {
        offsets.add(Duration.ofNanos(users == 1 ? 0 : duration.toNanos() * i / users));
      }
      return new Injection("rampUsers(" + users + ").during(" + duration + ")", offsets);
    }
  }

  public record ConstantRate(double perSecond) {
    public Injection during(Duration duration) {
      int users = (int) Math.floor(perSecond * duration.toNanos() / 1e9);
      List<Duration> offsets = new ArrayList<>(users);
      for (int i = 0; i < users; i++) {
        offsets.add(Duration.ofNanos((long) (i * 1e9 / perSecond)));
      }
      return new Injection("constantUsersPerSec(" + perSecond + ").during(" + duration + ")", offsets);
    }
  }

  public List<Duration> offsets() {
    return offsets;
  }

  public int users() {
    return offsets.size();
  }

  @Override
  public String toString() {
    return description;
  }
}
