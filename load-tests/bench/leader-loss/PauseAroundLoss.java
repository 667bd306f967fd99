import java.io.File;
import java.io.FileNotFoundException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * Reads a writer run's {@code register.hlog} (one latency histogram a second, keyed by the second
 * each registration completed) and splits its longest registrations into the one spanning the
 * leader's loss and the writers' own, warm tail elsewhere in the same run.
 *
 * <p>The longest registration of the whole run is not the pause: a fresh writer JVM's first
 * registrations (cold code, connections opening) are often the longest of all, and on this
 * machine they are as long as a planned hand-over. So the first {@value #COLD_SECONDS} seconds in
 * which anything completed are left out, and the rest is split at the loss.
 *
 * <p>Usage (Java 17 runs a single source file):
 * {@code java -cp load-tests/target/load-tests.jar PauseAroundLoss.java <register.hlog> <loss, epoch ms>}.
 * Prints one line: {@code around-loss-ms=<max> own-tail-ms=<max> own-p99-ms=<p99>}.
 */
public final class PauseAroundLoss {
  /** Seconds of a fresh writer JVM's start left out of the figures. */
  static final int COLD_SECONDS = 3;
  /**
   * A registration completing up to this long after the loss is counted as spanning it: an
   * election after {@code kill -9} plus the writers' retries take up to about 3 s here.
   */
  static final long AFTER_LOSS_MS = 5_000;

  public static void main(String[] args) throws FileNotFoundException {
    if (args.length != 2) {
      System.err.println("usage: PauseAroundLoss <register.hlog> <loss, epoch milliseconds>");
      System.exit(2);
    }
    long lossMs = Long.parseLong(args[1]);
    HistogramLogReader log = new HistogramLogReader(new File(args[0]));
    Histogram around = new Histogram(3_600_000_000L, 2);
    Histogram own = new Histogram(3_600_000_000L, 2);
    int secondsWithWrites = 0;
    Histogram interval;
    while ((interval = (Histogram) log.nextIntervalHistogram()) != null) {
      if (interval.getTotalCount() == 0 || ++secondsWithWrites <= COLD_SECONDS) {
        continue;
      }
      // The interval holds the registrations that completed within it: [start, end).
      boolean spansLoss = interval.getEndTimeStamp() > lossMs
          && interval.getStartTimeStamp() <= lossMs + AFTER_LOSS_MS;
      (spansLoss ? around : own).add(interval);
    }
    System.out.printf("around-loss-ms=%d own-tail-ms=%d own-p99-ms=%d%n",
        around.getMaxValue() / 1_000, own.getMaxValue() / 1_000, own.getValueAtPercentile(99) / 1_000);
  }
}
