package io.reactiveregistry.protocol.message;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Optional SETUP data: it labels the connection in logs, metrics and the dashboard, says which
 * optional parts of the contract the client understands ({@code features}, e.g.
 * {@value io.reactiveregistry.protocol.Protocol#FEATURE_MOVE}), and the client's {@code zone}: a
 * cluster moves a client that understands moves to a member of its zone while one is up.
 */
public record SetupData(@Nullable String client, @Nullable String version, @Nullable List<String> features,
    @Nullable String zone) {
  public SetupData(@Nullable String client, @Nullable String version) {
    this(client, version, null, null);
  }

  public SetupData(@Nullable String client, @Nullable String version, @Nullable List<String> features) {
    this(client, version, features, null);
  }

  /** True when the client said it understands {@code feature}. */
  public boolean understands(String feature) {
    return features != null && features.contains(feature);
  }
}
