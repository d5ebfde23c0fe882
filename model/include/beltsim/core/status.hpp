// Status codes of the model's building blocks. No exceptions anywhere in model/: every set-up
// and evaluation returns one of these, and a caller that gets anything but kOk must not use the
// result. Parameter errors name the parameter (see parameterName()). Both types are
// [[nodiscard]] and the build treats a discarded one as an error (-Werror=unused-result): a
// caller that means to ignore one says so with a cast to void and a comment why.
#pragma once
#include <cstdint>

namespace beltsim {

enum class [[nodiscard]] Status : std::uint8_t {
  kOk = 0,
  // Set-up: a parameter is non-physical or not finite. Which one is in ParameterError::parameter.
  kInvalidParameter,
  // Evaluation: the state is degenerate (|r'| = 0 at an integration point, circle centre on a
  // segment point) or produced a non-finite value.
  kDegenerateState,
  kNonFiniteValue,
};

// A set-up result that names the offending parameter (a string literal, never freed).
struct [[nodiscard]] ParameterError {
  Status status = Status::kOk;
  const char* parameter = "";

  constexpr bool ok() const { return status == Status::kOk; }
  static constexpr ParameterError success() { return ParameterError{}; }
  static constexpr ParameterError invalid(const char* name) {
    return ParameterError{Status::kInvalidParameter, name};
  }
};

template <typename Scalar>
constexpr bool isFinite(Scalar value) {
  // x - x is 0 for finite x, NaN for +-Inf and NaN; NaN compares unequal to everything.
  return (value - value) == (value - value);
}

}  // namespace beltsim
