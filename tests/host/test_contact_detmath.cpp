// Deterministic elementary functions (issue 4; detmath.hpp, used by the contact for atan2 of the
// normal, docs/model_contact.md §4.5, and exp/log of the continuous law / exponent law): against the C library
// within a few ulp over many values, and the wrap operator of docs/model_contact.md §4.5 / paper [P] eq. (25).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "beltsim/core/detmath.hpp"
#include "../portable/test_contact_support.hpp"

namespace {

namespace dm = beltsim::detmath;

// Distance in units in the last place between two finite doubles (ordered bit patterns).
std::int64_t ulpDistance(double a, double b) {
  const auto ordered = [](double v) {
    std::int64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits < 0 ? std::numeric_limits<std::int64_t>::min() - bits : bits;
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// A random double with a random sign and a log-uniform magnitude in [10^lo, 10^hi].
double logUniform(contact_test::Lcg& rng, double lo, double hi, bool signed_) {
  const double magnitude = std::pow(10.0, rng.uniform(lo, hi));
  return signed_ && rng.integer(2) == 0 ? -magnitude : magnitude;
}

constexpr int kSamples = 1000000;

}  // namespace

// atan2 in (-pi, pi] (docs/model_contact.md §4.5 item 1) within 3 ulp of std::atan2 over 10^6 random argument pairs
// (magnitudes 1e-30..1e30 of both signs) plus the axes and the diagonal |y| = |x|. ("A few ulp",
// detmath.hpp: the table of atan(k/16) and the short series measure 2 ulp at most; the two
// argument halvings used before 2026-11-27 reached 5.)
TEST(ContactDetmath, Atan2WithinThreeUlpOfStd) {
  contact_test::Lcg rng(71);
  std::int64_t worst = 0;
  double worstY = 0, worstX = 0;
  for (int i = 0; i < kSamples; ++i) {
    double y = logUniform(rng, -30, 30, true), x = logUniform(rng, -30, 30, true);
    if (i % 10 == 0) y = std::copysign(std::fabs(x), y);       // diagonal
    if (i % 10 == 1) y = x * logUniform(rng, -12, -1, true);   // small ratio
    const std::int64_t d = ulpDistance(dm::atan2(y, x), std::atan2(y, x));
    if (d > worst) {
      worst = d;
      worstY = y;
      worstX = x;
    }
  }
  EXPECT_LE(worst, 3) << "at y=" << worstY << " x=" << worstX;
  RecordProperty("atan2_max_ulp", static_cast<int>(worst));
  std::printf("atan2: max %lld ulp over %d samples\n", static_cast<long long>(worst), kSamples);
  EXPECT_EQ(dm::atan2(0.0, 1.0), 0.0);
  EXPECT_EQ(dm::atan2(0.0, -1.0), dm::kPi);  // upper end of (-pi, pi]
  EXPECT_EQ(dm::atan2(1.0, 0.0), dm::kHalfPi);
  EXPECT_EQ(dm::atan2(-1.0, 0.0), -dm::kHalfPi);
  EXPECT_EQ(dm::atan2(0.0, 0.0), 0.0);
  EXPECT_LE(ulpDistance(dm::atan2(1.0, 1.0), std::atan2(1.0, 1.0)), 1);
  EXPECT_LE(ulpDistance(dm::atan2(-1e-300, -1.0), std::atan2(-1e-300, -1.0)), 1);  // just below the cut
  // Signed zeros as std::atan2 (C11 F.10.1.4): atan2(+-0, x > 0) = +-0.
  EXPECT_TRUE(std::signbit(dm::atan2(-0.0, 1.0)));
  EXPECT_FALSE(std::signbit(dm::atan2(0.0, 1.0)));
  // The table's interval edges (t = k/16 +- 1/32, the series' widest |u|) and the double just
  // below 1/32, where rounding 16 t + 0.5 would have picked k = 1 with an inexact t - c.
  for (int k = 0; k <= 32; ++k) {
    const double t = k / 32.0;
    for (const double y : {t, std::nextafter(t, 0.0), std::nextafter(t, 1.0)}) {
      if (y > 1.0) continue;
      EXPECT_LE(ulpDistance(dm::atan2(y, 1.0), std::atan2(y, 1.0)), 2) << "t = " << y;
    }
  }
}

// exp over |x| < 700 (its documented domain) within 2 ulp of std::exp; exp(NaN) is NaN.
TEST(ContactDetmath, ExpWithinTwoUlpOfStd) {
  contact_test::Lcg rng(72);
  std::int64_t worst = 0;
  double worstX = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double x = i % 2 == 0 ? rng.uniform(-699.9, 699.9) : logUniform(rng, -20, 2, true);
    const std::int64_t d = ulpDistance(dm::exp(x), std::exp(x));
    if (d > worst) {
      worst = d;
      worstX = x;
    }
  }
  EXPECT_LE(worst, 2) << "at x=" << worstX;
  std::printf("exp: max %lld ulp over %d samples\n", static_cast<long long>(worst), kSamples);
  EXPECT_EQ(dm::exp(0.0), 1.0);
  EXPECT_EQ(dm::exp(-800.0), 0.0);
  EXPECT_TRUE(std::isnan(dm::exp(std::numeric_limits<double>::quiet_NaN())));
}

// log over 1e-300..1e300 and near 1 within 4 ulp of std::log.
TEST(ContactDetmath, LogWithinFourUlpOfStd) {
  contact_test::Lcg rng(73);
  std::int64_t worst = 0;
  double worstX = 0;
  for (int i = 0; i < kSamples; ++i) {
    const double x = i % 2 == 0 ? logUniform(rng, -300, 300, false) : 1.0 + logUniform(rng, -15, -1, true);
    const std::int64_t d = ulpDistance(dm::log(x), std::log(x));
    if (d > worst) {
      worst = d;
      worstX = x;
    }
  }
  EXPECT_LE(worst, 4) << "at x=" << worstX;
  std::printf("log: max %lld ulp over %d samples\n", static_cast<long long>(worst), kSamples);
  EXPECT_EQ(dm::log(1.0), 0.0);
}

// pow(x, p) = exp(p log x) for the Hertz exponent 1.5 and others, over the gap range of a contact
// (1e-9..1e-1 m): relative error below 4 eps (1 + |p log x|), the condition number of exp(p log x)
// times the few-ulp errors of log and exp.
TEST(ContactDetmath, PowMatchesStdForContactRange) {
  contact_test::Lcg rng(74);
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double x = logUniform(rng, -9, -1, false), p = rng.uniform(1.0, 4.0);
    const double bound = 4.0 * 2.220446049250313e-16 * (1.0 + std::fabs(p * std::log(x)));
    const double error = std::fabs(dm::pow(x, p) / std::pow(x, p) - 1.0);
    EXPECT_LE(error, bound) << x << "^" << p;
    worst = std::fmax(worst, error / bound);
  }
  std::printf("pow: max error / bound %.3f\n", worst);
  EXPECT_EQ(dm::pow(0.0, 1.5), 0.0);
}

// docs/model_contact.md §4.5 item 5 / eq. (25): wrapDifference equals std::remainder (round-half-even) except at
// exact ties, where it picks -period/2; result in [-p/2, p/2).
TEST(ContactDetmath, WrapDifferenceMatchesRemainder) {
  contact_test::Lcg rng(75);
  for (int i = 0; i < 100000; ++i) {
    const double period = 2.0 * dm::kPi * rng.uniform(0.01, 1.0);
    const double d = rng.uniform(-100.0, 100.0);
    const double w = dm::wrapDifference(d, period);
    EXPECT_GE(w, -0.5 * period);
    EXPECT_LT(w, 0.5 * period);
    const double reference = std::remainder(d, period);
    const double diff = std::fabs(w - reference);
    // Equal up to the rounding of d - k p (|d| <= 100), or a full period apart at a tie.
    EXPECT_TRUE(diff < 64 * 2.3e-16 * 100.0 || std::fabs(diff - period) < 1e-12) << d << " " << period;
  }
  EXPECT_EQ(dm::wrapDifference(-0.5, 1.0), -0.5);
  EXPECT_EQ(dm::wrapDifference(0.5, 1.0), -0.5);
}
