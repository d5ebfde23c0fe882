// Deterministic elementary functions built from +, -, *, / and sqrt only (all correctly rounded
// by IEEE 754), so they give the same bits on x86-64 glibc, aarch64 glibc and Cortex-M7 newlib.
// The C libraries' atan2/exp/log differ between targets (and between glibc's ifunc variants),
// which would break the cross-target bit identity of the model. Accuracy: a few ulp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace beltsim::detmath {

constexpr double kPi = 3.14159265358979323846;
constexpr double kHalfPi = 1.57079632679489661923;
constexpr double kQuarterPi = 0.78539816339744830962;

// atan(t) for 0 <= t <= 1 (atan2 passes |y/x| or |x/y|): the nearest tabulated point c = k/16
// gives atan(t) = atan(c) + atan(u), u = (t - c) / (1 + t c), |u| <= 1/32, where 6 odd Taylor
// terms leave a remainder below |u|^13 / 13 < 1e-19 |u|. t - c is exact (Sterbenz: c/2 <= t <= 2c
// for k >= 1), so the error is the table's half ulp and a few roundings of the small atan(u).
// One division and no square root: the two argument halvings used before cost two of each.
inline double atanUnit(double t) {
  // atan(k/16), k = 0..16, correctly rounded (computed to 60 digits).
  // Entry 0 is -0.0 so that atan2(-0.0, x > 0) keeps its sign (-0 + u = u for every u).
  static constexpr double kAtanOfSixteenths[17] = {
      -0.0,                0.06241880999595735, 0.12435499454676144, 0.18534794999569476,
      0.24497866312686414, 0.3028848683749714,  0.35877067027057225, 0.4124104415973873,
      0.4636476090008061,  0.5123894603107377,  0.5585993153435624,  0.6022873461349642,
      0.6435011087932844,  0.6823165548747481,  0.7188299996216245,  0.7531512809621944,
      0.7853981633974483};
  if (!(t <= 1.0)) return t;  // NaN (the int conversion below would be undefined behaviour)
  // k = round(16 t), ties up, from exact steps (t * 32 is exact; 16 t + 0.5 could round up
  // just below 1/32, where t - c would then not be exact).
  const int k = (static_cast<int>(t * 32.0) + 1) >> 1;  // 0..16 for t in [0, 1]
  const double c = k * 0.0625;                       // exact
  const double u = (t - c) / (1.0 + t * c);
  const double u2 = u * u;
  // u (1 - u2/3 + u2^2/5 - ...), Horner; 1/(2j+1) folded at compile time (correctly rounded).
  const double series =
      1.0 - u2 * (1.0 / 3 - u2 * (1.0 / 5 - u2 * (1.0 / 7 - u2 * (1.0 / 9 - u2 * (1.0 / 11)))));
  return kAtanOfSixteenths[k] + u * series;
}

// atan2(y, x) in (-pi, pi]; atan2(0, 0) = 0.
inline double atan2(double y, double x) {
  const double ax = x < 0 ? -x : x;
  const double ay = y < 0 ? -y : y;
  if (ax == 0.0 && ay == 0.0) return 0.0;
  double angle = ay <= ax ? atanUnit(ay / ax) : kHalfPi - atanUnit(ax / ay);  // in [0, pi/2]
  if (x < 0) angle = kPi - angle;
  return y < 0 ? -angle : angle;
}

// 2^k for integer k in the normal range, built from its bit pattern (exact).
inline double pow2(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// exp(x), |x| < 700: x = k ln2 + r with |r| <= ln2/2, exp(r) by an 18-term Taylor series.
inline double exp(double x) {
  if (x != x) return x;  // NaN: the int conversion of k below would be undefined behaviour
  if (x > 700.0) x = 700.0;
  if (x < -700.0) return 0.0;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2 with the low bits split off
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  const double kd = x * kInvLn2;
  const int k = static_cast<int>(kd < 0 ? kd - 0.5 : kd + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1.0;
  for (int n = 18; n >= 1; --n) sum = 1.0 + r * sum / n;
  return sum * pow2(k);
}

// Natural logarithm for x > 0 (returns -inf-like -745 for x <= 0; callers validate inputs).
inline double log(double x) {
  if (!(x > 0.0)) return -745.0;
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // x = m 2^e, m in [0.5, 1); frexp is exact everywhere
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --exponent;
  }
  // log(m) = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.1716
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double sum = 0.0;
  for (int k = 12; k >= 0; --k) sum = 1.0 / (2 * k + 1) + s2 * sum;
  constexpr double kLn2 = 0.69314718055994530942;
  return 2.0 * s * sum + exponent * kLn2;
}

// x^p for x >= 0 (0^p = 0 for p > 0).
inline double pow(double x, double p) {
  if (x <= 0.0) return 0.0;
  return exp(p * log(x));
}

// sin and cos for |x| < 1e5: x = k pi/2 + r with pi/2 split in three parts (Cody-Waite), so r is
// accurate to a few ulp; |r| <= pi/4 where 12 Taylor terms reach 1e-19.
namespace detail {
inline void reduceQuarterTurns(double x, int& quadrant, double& r) {
  constexpr double kInvHalfPi = 6.36619772367581382433e-01;
  constexpr double kHalfPi1 = 1.57079632673412561417e+00;  // first 33 bits of pi/2
  constexpr double kHalfPi2 = 6.07710050650619224932e-11;  // next 33 bits
  constexpr double kHalfPi3 = 2.02226624879595063154e-21;  // the rest
  const double kd = x * kInvHalfPi;
  const double k = kd < 0 ? -std::floor(-kd + 0.5) : std::floor(kd + 0.5);
  r = ((x - k * kHalfPi1) - k * kHalfPi2) - k * kHalfPi3;
  const long long ki = static_cast<long long>(k);
  quadrant = static_cast<int>(((ki % 4) + 4) % 4);
}
inline double sinSeries(double r) {
  const double r2 = r * r;
  double sum = 0.0;
  for (int n = 12; n >= 1; --n) sum = 1.0 - r2 * sum / ((2.0 * n) * (2.0 * n + 1.0));
  return r * sum;
}
inline double cosSeries(double r) {
  const double r2 = r * r;
  double sum = 0.0;
  for (int n = 12; n >= 1; --n) sum = 1.0 - r2 * sum / ((2.0 * n - 1.0) * (2.0 * n));
  return sum;
}
}  // namespace detail

inline double sin(double x) {
  int quadrant;
  double r;
  detail::reduceQuarterTurns(x, quadrant, r);
  switch (quadrant) {
    case 0: return detail::sinSeries(r);
    case 1: return detail::cosSeries(r);
    case 2: return -detail::sinSeries(r);
    default: return -detail::cosSeries(r);
  }
}

inline double cos(double x) {
  int quadrant;
  double r;
  detail::reduceQuarterTurns(x, quadrant, r);
  switch (quadrant) {
    case 0: return detail::cosSeries(r);
    case 1: return -detail::sinSeries(r);
    case 2: return -detail::cosSeries(r);
    default: return detail::sinSeries(r);
  }
}

// Wraps a difference into [-period/2, period/2): d - floor(d/period + 1/2) period (docs/model_contact.md §4.5).
// std::floor is exact on every target.
inline double wrapDifference(double difference, double period) {
  return difference - std::floor(difference / period + 0.5) * period;
}

}  // namespace beltsim::detmath
