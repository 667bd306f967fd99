package io.reactiveregistry.server.e2e;

import io.reactiveregistry.server.security.StaticTokens;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** The text of a token file ({@code --token-file}): each token's name, its SHA-256 and its grants. */
public final class TokenFile {
  private TokenFile() {}

  /**
   * @param grantsByToken each token and its grants as JSON ({@code {"prod":["read","write"]}}); a token is
   *     named for what comes before its last {@code -}
   */
  public static String of(Map<String, String> grantsByToken) {
    List<String> entries = new ArrayList<>();
    grantsByToken.forEach((token, grants) -> entries.add("{\"name\":\"" + token.substring(0, token.lastIndexOf('-'))
        + "\",\"sha256\":\"" + HexFormat.of().formatHex(StaticTokens.sha256(token)) + "\",\"permissions\":"
        + grants + "}"));
    return "{\"tokens\":[" + String.join(",", entries) + "]}";
  }
}
