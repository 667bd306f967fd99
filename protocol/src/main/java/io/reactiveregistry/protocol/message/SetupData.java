package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Optional SETUP data: it labels the connection in logs, metrics and the dashboard, and says which
 * optional parts of the contract the client understands ({@code features}, e.g.
 * {@value io.reactiveregistry.protocol.Protocol#FEATURE_MOVE}).
 */
public record SetupData(@Nullable String client, @Nullable String version, @Nullable List<String> features) {
  public SetupData(@Nullable String client, @Nullable String version) {
    this(client, version, null);
  }

  /** True when the client said it understands {@code feature}. */
  public boolean understands(String feature) {
    return features != null && features.contains(feature);
  }
}
