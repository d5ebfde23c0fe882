// Axis-aligned bounding box that fits a cubic ANCF element exactly (paper [P] eqs. 10-13, docs/model_contact.md §5):
// the extrema of each polynomial coordinate r_x(x) = a0 + a1 x + a2 x^2 + a3 x^3 on [0, L] are at
// the ends or at roots of r_x'. Used to skip element-circle pairs that cannot touch.
#pragma once
#include <cmath>

#include "beltsim/element/segment_marker.hpp"

namespace beltsim {

namespace detail {
// The larger / smaller of two finite values, inline (std::fmax and std::fmin are library calls
// that also order NaNs; the box's inputs are finite, checked before any post-Newton step).
inline double larger(double a, double b) { return a > b ? a : b; }
inline double smaller(double a, double b) { return a < b ? a : b; }
}  // namespace detail

struct BoundingBox {
  Vector2 lower;
  Vector2 upper;

  void inflate(double margin) {
    lower.array() -= margin;
    upper.array() += margin;
  }
  bool contains(const Vector2& p) const {
    return p(0) >= lower(0) && p(0) <= upper(0) && p(1) >= lower(1) && p(1) <= upper(1);
  }
  // True if no point of the box lies within `radius` of `centre`.
  bool separatedFromCircle(const Vector2& centre, double radius) const {
    const double dx = detail::larger(detail::larger(lower(0) - centre(0), 0.0), centre(0) - upper(0));
    const double dy = detail::larger(detail::larger(lower(1) - centre(1), 0.0), centre(1) - upper(1));
    return dx * dx + dy * dy > radius * radius;
  }
};

namespace detail {
// Range of a0 + a1 x + a2 x^2 + a3 x^3 over [0, length].
inline void cubicRange(double a0, double a1, double a2, double a3, double length, double& low, double& high) {
  const auto value = [&](double x) { return a0 + x * (a1 + x * (a2 + x * a3)); };
  low = value(0.0);
  high = low;
  const double end = value(length);
  low = smaller(low, end);
  high = larger(high, end);
  double roots[2];
  int rootCount = 0;
  if (a3 != 0.0) {
    // Roots of 3 a3 x^2 + 2 a2 x + a1 without cancellation: w = -(a2 + sgn(a2) sqrt(a2^2 - 3 a3 a1)),
    // x1 = w / (3 a3), x2 = a1 / w. The textbook form (-2 a2 +- sqrt(.)) / (6 a3) loses the small
    // root when |a3| << |a2| (a nearly parabolic coordinate, e.g. far from the origin, where a3
    // is rounding noise), and the box then misses the extremum.
    const double discriminant = a2 * a2 - 3.0 * a3 * a1;
    if (discriminant >= 0.0) {
      const double root = std::sqrt(discriminant);
      const double w = -(a2 + (a2 < 0.0 ? -root : root));
      if (w != 0.0) {
        roots[rootCount++] = w / (3.0 * a3);
        roots[rootCount++] = a1 / w;
      } else {
        roots[rootCount++] = 0.0;  // a2 = 0 and a3 a1 = 0: double root at 0 (an end point)
      }
    }
  } else if (a2 != 0.0) {
    roots[rootCount++] = -a1 / (2.0 * a2);
  }
  for (int i = 0; i < rootCount; ++i) {
    if (roots[i] > 0.0 && roots[i] < length) {
      const double v = value(roots[i]);
      low = smaller(low, v);
      high = larger(high, v);
    }
  }
}
}  // namespace detail

// Exact box of the element centreline (docs/model_element.md §2.2 monomial coefficients).
inline BoundingBox elementBoundingBox(const Vector8& q, double length) {
  BoundingBox box;
  const double l2 = length * length;
  const double l3 = l2 * length;
  for (int c = 0; c < 2; ++c) {
    const double q0 = q(c), q2 = q(2 + c), q4 = q(4 + c), q6 = q(6 + c);
    const double a2 = -(3.0 * q0 - 3.0 * q4 + 2.0 * length * q2 + length * q6) / l2;
    const double a3 = (2.0 * q0 - 2.0 * q4 + length * (q2 + q6)) / l3;
    detail::cubicRange(q0, q2, a2, a3, length, box.lower(c), box.upper(c));
  }
  return box;
}

}  // namespace beltsim
