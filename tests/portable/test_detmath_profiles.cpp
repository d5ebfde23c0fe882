// Deterministic elementary functions (used instead of libm so that targets agree bit for bit)
// against identities that hold exactly or to round-off, and the paper's time profiles.
#include "beltsim/core/detmath.hpp"
#include "beltsim/system/profiles.hpp"
#include "minitest.hpp"

using namespace beltsim;

MT_TEST(sin_and_cos_satisfy_pythagoras_and_known_values) {
  // sin^2 + cos^2 = 1 to round-off; sin(pi/6) = 1/2, cos(pi/3) = 1/2, sin(pi) ~ 1.22e-16.
  for (int i = -2000; i <= 2000; ++i) {
    const double x = 0.0137 * i * i * (i < 0 ? -1 : 1) * 0.01;
    const double s = detmath::sin(x), c = detmath::cos(x);
    MT_EXPECT_NEAR(s * s + c * c, 1.0, 4e-16);
  }
  MT_EXPECT_NEAR(detmath::sin(detmath::kPi / 6), 0.5, 2e-16);
  MT_EXPECT_NEAR(detmath::cos(detmath::kPi / 3), 0.5, 2e-16);
  // Three-part reduction keeps sin(fl(pi)) = 1.2246467991473532e-16 to 1e-20 absolute (a
  // one-part reduction would be off by ~1e-16).
  MT_EXPECT_NEAR(detmath::sin(detmath::kPi), 1.2246467991473532e-16, 1e-20);
}

MT_TEST(atan2_inverts_sin_and_cos_over_the_full_circle) {
  // atan2(sin a, cos a) = a for a in (-pi, pi]; quadrant handling and the branch cut at +-pi.
  for (int i = -999; i <= 1000; ++i) {
    const double a = detmath::kPi * i / 1000.0;
    MT_EXPECT_NEAR(detmath::atan2(detmath::sin(a), detmath::cos(a)), a, 1e-15);
  }
  MT_EXPECT_NEAR(detmath::atan2(0.0, -1.0), detmath::kPi, 0.0);
  MT_EXPECT_NEAR(detmath::atan2(0.0, 0.0), 0.0, 0.0);
}

MT_TEST(exp_and_log_are_inverse_and_multiplicative) {
  // log(exp(x)) = x; exp(a + b) = exp(a) exp(b); log(2) to round-off.
  for (int i = -240; i <= 240; ++i) {
    const double x = i / 8.0;  // exact binary values, so x + 0.5 carries no rounding
    MT_EXPECT_NEAR(detmath::log(detmath::exp(x)), x, 4e-15 * (1.0 + (x < 0 ? -x : x)));
    MT_EXPECT_REL(detmath::exp(x) * detmath::exp(0.5), detmath::exp(x + 0.5), 1e-15);
  }
  MT_EXPECT_NEAR(detmath::log(2.0), 0.69314718055994530942, 2e-16);
  MT_EXPECT_REL(detmath::pow(2.0, 1.5), 2.0 * 1.4142135623730951, 1e-15);
}

MT_TEST(wrap_difference_maps_into_half_open_period) {
  // docs/model_contact.md §4.5: wrap(d) = d - floor(d/P + 1/2) P lies in [-P/2, P/2).
  const double period = 2.0 * detmath::kPi * 0.1;
  MT_EXPECT_NEAR(detmath::wrapDifference(period * 0.75, period), -period * 0.25, 1e-16);
  MT_EXPECT_NEAR(detmath::wrapDifference(-period * 0.75, period), period * 0.25, 1e-16);
  MT_EXPECT_NEAR(detmath::wrapDifference(0.01 + 3 * period, period), 0.01, 1e-15);
  MT_EXPECT_NEAR(detmath::wrapDifference(period * 0.5, period), -period * 0.5, 0.0);
}

MT_TEST(smooth_step_is_the_papers_load_ramp) {
  // docs/model_drive_and_solver.md §6 / paper [P] eq. 37: tau(t) = 25 (0.5 - 0.5 cos(2 pi (t - 1))) for 1 < t < 1.5.
  for (int i = 0; i <= 50; ++i) {
    const double t = 1.0 + 0.01 * i;
    const double expected = 25.0 * (0.5 - 0.5 * detmath::cos(2.0 * detmath::kPi * (t - 1.0)));
    MT_EXPECT_NEAR(smoothStep(t, 1.0, 1.5, 0.0, 25.0), expected, 1e-13);
  }
  MT_EXPECT_NEAR(smoothStep(0.9, 1.0, 1.5, 0.0, 25.0), 0.0, 0.0);
  MT_EXPECT_NEAR(smoothStep(1.25, 1.0, 1.5, 0.0, 25.0), 12.5, 1e-13);
  MT_EXPECT_NEAR(smoothStep(2.0, 1.0, 1.5, 0.0, 25.0), 25.0, 0.0);
}

MT_TEST(linear_ramp_is_the_papers_drive_speed) {
  // docs/model_drive_and_solver.md §6: omega(t) = 12 (t - 0.05) / 0.55 between 0.05 s and 0.6 s.
  RampProfile drive{RampProfile::Shape::kLinear, 0.05, 0.6, 0.0, 12.0};
  MT_EXPECT_NEAR(drive.at(0.0), 0.0, 0.0);
  MT_EXPECT_NEAR(drive.at(0.325), 6.0, 1e-14);
  MT_EXPECT_NEAR(drive.at(2.45), 12.0, 0.0);
}

MT_TEST(detmath_prints_bits) {
  (void)mt_ctx;
  minitest::print("BITS sin1 ");
  minitest::printHexBits(detmath::sin(1.0));
  minitest::print("\nBITS atan2 ");
  minitest::printHexBits(detmath::atan2(0.3, -0.7));
  minitest::print("\nBITS exp ");
  minitest::printHexBits(detmath::exp(-2.5));
  minitest::print("\nBITS log ");
  minitest::printHexBits(detmath::log(123.456));
  minitest::print("\n");
}
