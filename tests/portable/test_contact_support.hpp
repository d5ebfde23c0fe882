// Shared helpers of the contact tests (issue 4): a tiny deterministic LCG (no <random>, same
// numbers on every target), element builders, the closed belt path of docs/model_start_and_benchmark.md §8.1 around two equal
// pulleys, and rigid-body virtual displacements of an element. No heap, small stack use; usable by
// the portable minitest images, the GoogleTest suites and the benchmark.
#pragma once
#include <cmath>
#include <cstdint>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/element/segment_marker.hpp"

namespace contact_test {

using beltsim::Vector2;
using beltsim::Vector8;

// 64-bit LCG (Knuth's MMIX constants); doubles from the top 53 bits, exactly reproducible.
struct Lcg {
  std::uint64_t state;
  explicit Lcg(std::uint64_t seed) : state(seed * 2862933555777941757ull + 3037000493ull) {}
  std::uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state;
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  int integer(int count) { return static_cast<int>((next() >> 33) % static_cast<std::uint64_t>(count)); }
  // Two draws in a fixed order. (Never write Vector2(rng.uniform(), rng.uniform()) or
  // f(rng.uniform()) * rng.uniform(): the evaluation order of function arguments and operands is
  // unspecified, differs between compilers/targets, and then the "same" random inputs differ.)
  Vector2 vector(double low, double high) {
    const double x = uniform(low, high);
    const double y = uniform(low, high);
    return Vector2(x, y);
  }
};

// sin and cos of test inputs from +, -, *, / only (the C libraries' sin/cos differ in the last
// bit between glibc and newlib, which would make the inputs, and so the BITS records, differ
// between targets). Reduction to [-pi, pi], then Taylor series to x^31: absolute error ~1e-15,
// plenty for test geometry.
inline double reduceAngle(double x) {
  const double twoPi = 2.0 * beltsim::detmath::kPi;
  return x - std::floor(x / twoPi + 0.5) * twoPi;
}
inline double sinT(double x) {
  x = reduceAngle(x);
  const double x2 = x * x;
  double sum = 1.0;
  for (int k = 15; k >= 1; --k) sum = 1.0 - x2 * sum / ((2 * k) * (2 * k + 1));
  return x * sum;
}
inline double cosT(double x) {
  x = reduceAngle(x);
  const double x2 = x * x;
  double sum = 1.0;
  for (int k = 15; k >= 1; --k) sum = 1.0 - x2 * sum / ((2 * k - 1) * (2 * k));
  return sum;
}

inline Vector2 rotate(const Vector2& v, double angle) {
  const double c = cosT(angle), s = sinT(angle);
  return Vector2(c * v(0) - s * v(1), s * v(0) + c * v(1));
}

inline Vector8 elementFromNodes(const Vector2& rA, const Vector2& slopeA, const Vector2& rB, const Vector2& slopeB) {
  Vector8 q;
  q << rA, slopeA, rB, slopeB;
  return q;
}

// Centreline position of an element at local coordinate x (Hermite form, independent of the
// monomial form used by the bounding box).
inline Vector2 centreline(const Vector8& q, double length, double x) {
  return beltsim::HermiteShape<double>::interpolate(beltsim::HermiteShape<double>::at(x, length).s, q);
}

// Virtual rigid-body displacements of an element: a unit translation along axis `axis`, and a unit
// rotation about `centre` (delta r = (r - c)^perp, delta r' = r'^perp). Because S1 + S3 = 1 and
// S1' + S3' = 0, these move every point of the centreline (and every offset point, whose normal
// turns with the slope) rigidly; so Q_e . dq equals the resultant force component / the moment
// about `centre` of the point forces behind Q_e = sum_k J_k^T F_k (docs/model_contact.md §3) exactly.
inline Vector8 translationMode(int axis) {
  Vector8 d = Vector8::Zero();
  d(axis) = 1.0;
  d(4 + axis) = 1.0;
  return d;
}
inline Vector8 rotationMode(const Vector8& q, const Vector2& centre) {
  Vector8 d;
  const Vector2 rA = q.segment<2>(0) - centre, rB = q.segment<2>(4) - centre;
  d << beltsim::leftNormal(rA), beltsim::leftNormal(q.segment<2>(2)), beltsim::leftNormal(rB),
      beltsim::leftNormal(q.segment<2>(6));
  return d;
}

// Closed belt path of docs/model_start_and_benchmark.md §8.1 around two equal pulleys, centres (0, 0) and (d, 0), centreline
// radius R, traversed clockwise from the top of pulley 0: top span, arc on pulley 1, bottom span,
// arc on pulley 0. Node coordinates are [position; unit tangent].
struct TwoPulleyBelt {
  double centreDistance;  // d, m
  double radius;          // R, centreline radius on the pulleys, m
  int elementCount;

  double beltLength() const { return 2.0 * centreDistance + 2.0 * beltsim::detmath::kPi * radius; }
  double elementLength() const { return beltLength() / elementCount; }

  // Position, unit tangent and d(tangent)/ds at arc coordinate s (any real s; wrapped).
  void at(double s, Vector2& position, Vector2& tangent, Vector2& tangentRate) const {
    const double lb = beltLength();
    s = s - std::floor(s / lb) * lb;
    const double d = centreDistance, R = radius, pi = beltsim::detmath::kPi;
    if (s < d) {
      position = Vector2(s, R);
      tangent = Vector2(1.0, 0.0);
      tangentRate = Vector2::Zero();
    } else if (s < d + pi * R) {
      const double th = (s - d) / R;
      position = Vector2(d + R * sinT(th), R * cosT(th));
      tangent = Vector2(cosT(th), -sinT(th));
      tangentRate = Vector2(-sinT(th), -cosT(th)) / R;
    } else if (s < 2.0 * d + pi * R) {
      const double u = s - d - pi * R;
      position = Vector2(d - u, -R);
      tangent = Vector2(-1.0, 0.0);
      tangentRate = Vector2::Zero();
    } else {
      const double th = (s - 2.0 * d - pi * R) / R;
      position = Vector2(-R * sinT(th), -R * cosT(th));
      tangent = Vector2(-cosT(th), sinT(th));
      tangentRate = Vector2(sinT(th), cosT(th)) / R;
    }
  }

  // Element e (nodes e and e+1 mod n) with the whole belt shifted by `shift` along its path and
  // moving with speed `speed` along it (node velocity v t_hat, slope rate v dt_hat/ds).
  void element(int e, double shift, double speed, Vector8& q, Vector8& qDot) const {
    const double L = elementLength();
    Vector2 p0, t0, k0, p1, t1, k1;
    at(e * L + shift, p0, t0, k0);
    at((e + 1) * L + shift, p1, t1, k1);
    q = elementFromNodes(p0, t0, p1, t1);
    qDot = elementFromNodes(speed * t0, speed * k0, speed * t1, speed * k1);
  }
};

// Random element lying near a circle (centre c, radius r): both nodes at radius
// r + (|offset| or 0) + a random radial offset in [-penetration, +clearance], spread over a random
// angle, slopes along the local circle tangent (clockwise, so the circle lies to the element's
// right as on a belt drive) with random magnitude and direction errors.
inline Vector8 randomElementNearCircle(Lcg& rng, const Vector2& centre, double radius, double length,
                                       double offset, double penetration, double clearance) {
  const double angle0 = rng.uniform(-beltsim::detmath::kPi, beltsim::detmath::kPi);
  const double sweep = length / radius;
  Vector8 q;
  for (int node = 0; node < 2; ++node) {
    const double angle = angle0 - node * sweep;  // clockwise
    const double rr = radius - offset + rng.uniform(-penetration, clearance);
    const Vector2 radial(cosT(angle), sinT(angle));
    const Vector2 tangent(radial(1), -radial(0));  // clockwise tangent
    const double turn = rng.uniform(-0.1, 0.1);
    const double stretch = rng.uniform(0.9, 1.1);
    const Vector2 slope = rotate(tangent, turn) * stretch;
    q.segment<2>(4 * node) = centre + rr * radial;
    q.segment<2>(4 * node + 2) = slope;
  }
  return q;
}

inline bool allFinite(const double* values, int count) {
  for (int i = 0; i < count; ++i)
    if (!beltsim::isFinite(values[i])) return false;
  return true;
}

}  // namespace contact_test
