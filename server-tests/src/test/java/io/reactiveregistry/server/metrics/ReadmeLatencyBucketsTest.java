package io.reactiveregistry.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.LatencyBuckets;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's list of histogram buckets is the one the server and the Java client use: a user
 * writing {@code histogram_quantile} or an alert on {@code le="0.02"} reads it there.
 */
class ReadmeLatencyBucketsTest {
  @Test
  void theReadmeListsEveryBucketInOrder() throws Exception {
    String readme = Files.readString(Path.of("../README.md"));
    Matcher sentence = Pattern.compile("Every latency is a histogram with the buckets (.+?) seconds").matcher(readme);
    assertThat(sentence.find()).as("the README's sentence on the buckets").isTrue();
    List<BigDecimal> listed = Pattern.compile("`([0-9.]+)`").matcher(sentence.group(1)).results()
        .map(found -> new BigDecimal(found.group(1))).toList();

    List<BigDecimal> used = Arrays.stream(LatencyBuckets.all())
        .map(bound -> BigDecimal.valueOf(bound.toNanos()).movePointLeft(9)).toList();

    assertThat(listed).usingElementComparator(BigDecimal::compareTo).containsExactlyElementsOf(used);
    assertThat(used).contains(BigDecimal.valueOf(Duration.ofMillis(20).toNanos()).movePointLeft(9)); // the push target
  }
}
