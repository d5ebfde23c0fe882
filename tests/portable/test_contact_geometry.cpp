// Contact geometry of one segment (issue 4, docs/model_contact.md §4.2, paper [P] Sect. 2.3 eqs. 14-16): the three
// closest-point cases of rho, the gap sign, the normal from the circle centre to the segment, and
// the degenerate case of a centre on the segment. Also the wrap operator of docs/model_contact.md §4.5 / eq. (25).
#include <cmath>

#include "beltsim/contact/pair_finite_difference.hpp"
#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/core/detmath.hpp"
#include "minitest.hpp"
#include "test_contact_support.hpp"

using beltsim::ContactPair;
using beltsim::ContactParameters;
using beltsim::SegmentGeometry;
using beltsim::segmentGeometry;
using beltsim::Vector2;
using beltsim::Vector8;

namespace {
constexpr double kEps = 2.220446049250313e-16;

bool isUnit(const Vector2& v) { return std::fabs(v.norm() - 1.0) < 8 * kEps; }
}  // namespace

// docs/model_contact.md §4.2 case 2a / eq. (14) case 1: rho < 0 is clamped to 0, the closest point is P_i, the
// distance is |c - P_i| and the normal points from the centre to P_i (not perpendicular to the
// segment, docs/model_differences.md §10.12).
MT_TEST(rho_below_zero_clamps_to_first_point_with_normal_from_centre_to_it) {
  const Vector2 p0(0.0, 0.0), p1(1.0, 0.0), c(-0.3, -0.4);  // projection parameter -0.3
  const SegmentGeometry g = segmentGeometry(p0, p1, c, 0.2);
  MT_EXPECT(g.rho == 0.0);
  MT_EXPECT_NEAR(g.distance, 0.5, 4 * kEps);  // 3-4-5 triangle
  MT_EXPECT_NEAR(g.gap, 0.3, 4 * kEps);
  MT_EXPECT_NEAR(g.normal(0), 0.6, 4 * kEps);  // (p0 - c) / |p0 - c| = (0.3, 0.4) / 0.5
  MT_EXPECT_NEAR(g.normal(1), 0.8, 4 * kEps);
  MT_EXPECT(!g.degenerate);
}

// docs/model_contact.md §4.2 case 2b / eq. (14) case 2: rho >= 1 is clamped to 1, closest point P_{i+1}.
MT_TEST(rho_at_or_above_one_clamps_to_second_point_with_normal_from_centre_to_it) {
  const Vector2 p0(0.0, 0.0), p1(1.0, 0.0), c(1.4, 0.3);  // projection parameter 1.4
  const SegmentGeometry g = segmentGeometry(p0, p1, c, 0.6);
  MT_EXPECT(g.rho == 1.0);
  MT_EXPECT_NEAR(g.distance, 0.5, 4 * kEps);
  MT_EXPECT_NEAR(g.gap, -0.1, 4 * kEps);  // penetration: g < 0
  MT_EXPECT_NEAR(g.normal(0), -0.8, 4 * kEps);
  MT_EXPECT_NEAR(g.normal(1), -0.6, 4 * kEps);
  // rho exactly 1 (centre on the perpendicular through P_{i+1}) also takes the clamped branch.
  const SegmentGeometry e = segmentGeometry(p0, p1, Vector2(1.0, -0.5), 0.1);
  MT_EXPECT(e.rho == 1.0);
  MT_EXPECT_NEAR(e.distance, 0.5, 4 * kEps);
  MT_EXPECT_NEAR(e.normal(1), 1.0, 4 * kEps);
}

// docs/model_contact.md §4.2 case 2c / eq. (15): 0 <= rho < 1, delta = sqrt(|v_p|^2 - n_rho^2 / d_rho), the normal is
// perpendicular to the segment and points from the centre to the segment, t = n^perp.
MT_TEST(interior_rho_gives_perpendicular_distance_and_normal) {
  const Vector2 p0(0.0, 0.0), p1(2.0, 0.0), c(0.5, -0.25);
  const SegmentGeometry g = segmentGeometry(p0, p1, c, 0.3);
  MT_EXPECT_NEAR(g.rho, 0.25, 4 * kEps);
  MT_EXPECT_NEAR(g.distance, 0.25, 4 * kEps);
  MT_EXPECT_NEAR(g.gap, -0.05, 4 * kEps);
  MT_EXPECT_NEAR(g.normal(0), 0.0, 4 * kEps);  // centre below the segment: n = +y
  MT_EXPECT_NEAR(g.normal(1), 1.0, 4 * kEps);
  MT_EXPECT_NEAR(g.tangent(0), -1.0, 4 * kEps);  // t = n^perp = (-n_y, n_x)
  MT_EXPECT_NEAR(g.tangent(1), 0.0, 4 * kEps);
}

// Eq. (16): g = delta - r is positive outside the circle, zero on it, negative inside; and for
// random segments around a circle the normal always points from the centre to the closest point:
// c + delta n is the closest point, which lies on the segment (docs/model_contact.md §4.2 item 4).
MT_TEST(gap_sign_and_normal_direction_from_centre_to_closest_point_for_random_segments) {
  contact_test::Lcg rng(11);
  int outside = 0, inside = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Vector2 c = rng.vector(-1, 1);
    const Vector2 p0 = rng.vector(-1, 1);
    const Vector2 p1 = p0 + rng.vector(-0.3, 0.3);
    const double r = rng.uniform(0.05, 1.0);
    const SegmentGeometry g = segmentGeometry(p0, p1, c, r);
    const Vector2 closest = p0 + g.rho * (p1 - p0);
    // Brute-force distance over 2001 points of the segment (>= the exact minimum).
    double bruteForce = 1e300;
    for (int k = 0; k <= 2000; ++k) bruteForce = std::fmin(bruteForce, (p0 + (k / 2000.0) * (p1 - p0) - c).norm());
    MT_EXPECT(g.rho >= 0.0 && g.rho <= 1.0);
    MT_EXPECT(g.distance <= bruteForce + 1e-12);
    MT_EXPECT(g.distance >= bruteForce - (p1 - p0).norm() / 4000.0);  // half the sample spacing
    // Normal from the centre to the segment: c + delta n is the closest point. Tolerance: the
    // radicand of eq. (15) carries an absolute error ~eps |v_p|^2, i.e. ~eps |v_p|^2 / delta on delta.
    const double radicandError = 8 * kEps * (c - p0).squaredNorm() / std::fmax(g.distance, 1e-300);
    MT_EXPECT((c + g.distance * g.normal - closest).norm() < 1e-12 + radicandError);
    MT_EXPECT(isUnit(g.normal) && isUnit(g.tangent));
    MT_EXPECT(std::fabs(g.normal.dot(g.tangent)) < 4 * kEps);
    MT_EXPECT((g.gap > 0) == (g.distance > r));
    if (g.gap > 0) ++outside; else ++inside;
  }
  MT_EXPECT(outside > 100 && inside > 100);  // both signs exercised
}

// Issue 4 "Bad input" / docs/model_differences.md §10.11: a centre exactly on the segment (delta = 0) yields a unit
// normal (the segment's left normal), a flagged state and no NaN, for generic orientations where
// the radicand of eq. (15) does not cancel to exactly 0.
MT_TEST(centre_on_segment_gives_flagged_unit_left_normal_without_nan) {
  contact_test::Lcg rng(12);
  for (int trial = 0; trial < 5000; ++trial) {
    const Vector2 p0 = rng.vector(-1, 1);
    const Vector2 p1 = rng.vector(-1, 1);
    const double t = trial % 50 == 0 ? 0.0 : (trial % 50 == 1 ? 1.0 : rng.uniform());
    const Vector2 c = p0 + t * (p1 - p0);  // on the segment up to one rounding
    const SegmentGeometry g = segmentGeometry(p0, p1, c, 0.1);
    MT_EXPECT(g.degenerate);
    MT_EXPECT(isUnit(g.normal) && isUnit(g.tangent));
    const Vector2 left = beltsim::leftNormal(p1 - p0) / (p1 - p0).norm();
    MT_EXPECT((g.normal - left).norm() < 8 * kEps);
    MT_EXPECT(beltsim::isFinite(g.gap) && g.gap < 0.0);
  }
  // Coincident segment points and the centre on them: the fallback normal (0, 1).
  const SegmentGeometry g = segmentGeometry(Vector2(0.2, 0.3), Vector2(0.2, 0.3), Vector2(0.2, 0.3), 0.1);
  MT_EXPECT(g.degenerate && g.rho == 0.0);
  MT_EXPECT(g.normal(0) == 0.0 && g.normal(1) == 1.0);
}

// Issue 4 "Bad input": a circle centre exactly on a segment point of an element (d = 0) in a
// ContactPair: Newton forces, PNS, outputs and the Jacobian stay finite; the state is flagged.
MT_TEST(contact_pair_with_centre_on_segment_point_is_flagged_and_finite) {
  ContactParameters p;
  p.contactStiffness = 1e5;
  p.contactDamping = 10;
  p.friction.frictionCoefficient = 0.5;
  p.friction.bristleStiffness = 1e5;
  p.friction.velocityPenalty = 10;
  p.radius = 0.1;
  ContactPair<4> pair;
  MT_EXPECT(pair.setUp(p).ok());
  const double L = 0.2;
  const Vector8 q = contact_test::elementFromNodes(Vector2(0.0, 0.0), Vector2(1.0, 0.2), Vector2(L, 0.03),
                                                   Vector2(1.0, -0.1));
  Vector8 qDot;
  qDot << 0.1, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0;
  beltsim::SegmentPoints<4> points;
  MT_EXPECT(beltsim::computeSegmentPoints(q, qDot, L, 4, 0.0, points) == beltsim::Status::kOk);
  beltsim::CircleState circle;
  circle.centre = points.position[2];  // exactly on segment point 2
  double error = 0.0;
  MT_EXPECT(pair.postNewtonStep(q, qDot, L, circle, error) == beltsim::Status::kDegenerateState);
  MT_EXPECT(beltsim::isFinite(error));
  MT_EXPECT(pair.anyFlagged());  // segments 1 and 2 penetrate by a full radius
  beltsim::PairForces f;
  MT_EXPECT(pair.evaluateNewton(q, qDot, L, circle, f) == beltsim::Status::kOk);
  MT_EXPECT(f.degenerate);
  MT_EXPECT(contact_test::allFinite(f.element.data(), 8));
  MT_EXPECT(contact_test::allFinite(f.circleForce.data(), 2) && beltsim::isFinite(f.circleTorque));
  beltsim::SegmentOutput out[4];
  MT_EXPECT(pair.outputs(q, qDot, L, circle, out) == beltsim::Status::kOk);
  for (int i = 0; i < 4; ++i) {
    MT_EXPECT(beltsim::isFinite(out[i].normalForce) && beltsim::isFinite(out[i].tangentialForce));
    MT_EXPECT(beltsim::isFinite(out[i].stickingDisplacement));
  }
  ContactPair<4>::Matrix11 k, c;
  MT_EXPECT(beltsim::finiteDifferenceJacobian(pair, q, qDot, L, circle, k, c) == beltsim::Status::kOk);
  MT_EXPECT(contact_test::allFinite(k.data(), 121) && contact_test::allFinite(c.data(), 121));
}

// docs/model_contact.md §4.5 item 5 / paper [P] eq. (25): wrap(D) = D - floor(D / (2 pi r) + 1/2) 2 pi r lies in
// [-pi r, pi r) and differs from D by a whole number of periods.
MT_TEST(wrap_difference_maps_into_half_open_period_by_whole_periods) {
  contact_test::Lcg rng(13);
  for (int trial = 0; trial < 5000; ++trial) {
    const double period = rng.uniform(0.01, 2.0);
    const double d = rng.uniform(-50.0, 50.0) * period;
    const double w = beltsim::detmath::wrapDifference(d, period);
    MT_EXPECT(w >= -0.5 * period && w < 0.5 * period);
    const double turns = (d - w) / period;
    MT_EXPECT(std::fabs(turns - std::floor(turns + 0.5)) < 1e-12);
  }
  MT_EXPECT(beltsim::detmath::wrapDifference(0.25, 1.0) == 0.25);
  MT_EXPECT(beltsim::detmath::wrapDifference(0.5, 1.0) == -0.5);   // +pi r maps to -pi r
  MT_EXPECT(beltsim::detmath::wrapDifference(-0.5, 1.0) == -0.5);
  MT_EXPECT(beltsim::detmath::wrapDifference(0.75, 1.0) == -0.25);
  // wrappedDifference with period <= 0 (straight support, 1D experiment) does not wrap.
  MT_EXPECT(beltsim::wrappedDifference(123.0, 0.0) == 123.0);
}
