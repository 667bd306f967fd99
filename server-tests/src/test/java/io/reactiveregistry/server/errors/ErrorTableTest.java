package io.reactiveregistry.server.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.rules.RuleViolation;
import io.reactiveregistry.server.core.Failure;
import io.reactiveregistry.server.core.RegistryException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** One table from failure to contract code, message and HTTP status, for RSocket and HTTP alike. */
class ErrorTableTest {

  @ParameterizedTest
  @CsvSource({
      "INVALID_PARAM, INVALID_PARAM, 400",
      "SERVICE_TYPE_MISMATCH, SERVICE_TYPE_MISMATCH, 409",
      "NOT_FOUND, NOT_FOUND, 404",
      "ALREADY_EXISTS, ALREADY_EXISTS, 409",
      "SERVICE_NOT_EMPTY, SERVICE_NOT_EMPTY, 409",
      "FORBIDDEN, FORBIDDEN, 403",
      "LIMIT_EXCEEDED, LIMIT_EXCEEDED, 429",
      "STORAGE_BEHIND, LIMIT_EXCEEDED, 429",
      "STORAGE_FAILED, INTERNAL, 500",
  })
  void everyCoreFailureHasOneCodeAndStatus(Failure failure, ErrorCode code, int status) {
    WireError error = ErrorTable.of(new RegistryException(failure, "why, in words"));
    assertThat(error).isEqualTo(new WireError(code, "why, in words", status));
  }

  @ParameterizedTest
  @EnumSource(ErrorCode.class)
  void everyContractCodeHasAnHttpStatus(ErrorCode code) {
    assertThat(ErrorTable.httpStatus(code)).isBetween(400, 599);
  }

  @Test
  void refusalsAtTheEdgeAndRuleViolationsKeepTheirWordsAndAFutureIsUnwrapped() {
    assertThat(ErrorTable.of(new EdgeRefusal(ErrorCode.UNKNOWN_ROUTE, "unknown route 'x'")))
        .isEqualTo(new WireError(ErrorCode.UNKNOWN_ROUTE, "unknown route 'x'", 404));
    assertThat(ErrorTable.of(new RuleViolation("port must be 1 to 65535")).code()).isEqualTo(ErrorCode.INVALID_PARAM);
    assertThat(ErrorTable.of(new CompletionException(new RegistryException(Failure.NOT_FOUND, "gone"))))
        .isEqualTo(new WireError(ErrorCode.NOT_FOUND, "gone", 404));
  }

  @Test
  void anythingElseIsInternalWithAReferenceAndNotItsMessage() {
    WireError error = ErrorTable.of(new IllegalStateException("a secret detail"));
    assertThat(error.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(error.httpStatus()).isEqualTo(500);
    assertThat(error.message()).startsWith("internal error (ref ").doesNotContain("secret");
  }
}
