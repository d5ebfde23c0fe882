// Force and moment balance between the belt element and the circle (issue 4; paper [P] Sect. 2.5
// eqs. 31-34; docs/model_contact.md §4.8, docs/model_element.md §0.2) for random contact states: random elements near a circle, random
// velocities, random offsets, both normal choices, both tangential laws, random histories
// (stick, slip, undefined, not flagged).
//
// What is exactly true (derivation):
//  * The generalized LHS of the element is Q_e = sum_k J_k^T F_k (docs/model_contact.md §3). For a rigid-body virtual
//    displacement dq of the element (translation, or rotation about the circle centre c), J_k dq
//    is the rigid displacement of point P_k (S1 + S3 = 1, S1' + S3' = 0, and the offset normal turns
//    with the slope). So Q_e . dq_translation = sum_k F_k (resultant of the point forces) and
//    Q_e . dq_rotation(c) = sum_k (P_k - c) x F_k (their moment about c), for any offset h_o.
//  * Force balance: the circle's LHS is -F_sum with F_sum = sum of all point forces (SN: the
//    weights (1 - rho) + rho = 1; PWN: F_sum is the same weighted sum), so
//    sum_k F_k + F_circle = 0 exactly (up to rounding).
//  * Moment: (1 - rho) F at P_i plus rho F at P_{i+1} has the moment of F at the closest point
//    P = (1 - rho) P_i + rho P_{i+1} (linearity of the cross product). With SN, P - c = delta n and
//    F = f_n n + f_t t, so the moment about c is delta f_t (the normal part has zero moment). With
//    PWN, F^l = f_n n_i + f_t t_i at P_i (n_i radial) has moment |P_i - c| f_t, so the segment
//    contributes f_t ((1 - rho)|P_i - c| + rho |P_{i+1} - c|).
//  * The circle's torque is -r sum f_t (LHS, eq. 34): the friction force acts at the circle surface
//    (radius r), the belt's reaction at the closest point (radius delta = r + g). Hence
//        Q_e . dq_rotation(c) + T_circle = sum_i f_t,i (arm_i - r),   arm_i = delta_i (SN),
//    which is sum_i g_i f_t,i for SN: the moments balance exactly only up to this lever-arm
//    difference of order |g| / r (penetration over radius). The tests assert this exact identity.
#include <cmath>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "minitest.hpp"
#include "test_contact_support.hpp"

using beltsim::ContactPair;
using beltsim::ContactParameters;
using beltsim::Vector2;
using beltsim::Vector8;

namespace {

struct RandomState {
  ContactParameters parameters;
  Vector8 q, qDot;
  double length;
  beltsim::CircleState circle;
  beltsim::SegmentHistory history[4];
};

RandomState randomState(contact_test::Lcg& rng, bool segmentNormals) {
  RandomState s;
  ContactParameters& p = s.parameters;
  p.segmentCount = 1 + rng.integer(4);
  p.contactStiffness = rng.uniform(1e3, 1e6);
  p.contactDamping = rng.uniform(0.0, 50.0);
  p.normalExponent = rng.integer(3) == 0 ? 1.5 : 1.0;
  p.friction.frictionCoefficient = rng.uniform(0.0, 1.0);
  p.friction.bristleStiffness = rng.integer(5) == 0 ? 0.0 : rng.uniform(1e3, 1e6);
  p.friction.velocityPenalty = rng.uniform(0.0, 100.0);
  p.friction.law = rng.integer(4) == 0 ? beltsim::TangentialLaw::kContinuous : beltsim::TangentialLaw::kBristle;
  p.friction.characteristicVelocity = rng.uniform(1e-3, 1e-1);
  p.radius = rng.uniform(0.05, 0.5);
  const int offsetKind = rng.integer(3);
  p.offset = offsetKind == 0 ? 0.0 : (offsetKind == 1 ? -5e-5 : rng.uniform(-0.01, 0.01));
  p.useSegmentNormals = segmentNormals;
  s.circle.centre = rng.vector(-1, 1);
  s.circle.velocity = rng.vector(-1, 1);
  s.circle.angle = rng.uniform(-20, 20);
  s.circle.angularVelocity = rng.uniform(-20, 20);
  s.length = p.radius * rng.uniform(0.1, 1.0);
  s.q = contact_test::randomElementNearCircle(rng, s.circle.centre, p.radius, s.length, p.offset,
                                              0.01 * p.radius, 0.005 * p.radius);
  for (int i = 0; i < 8; ++i) s.qDot(i) = rng.uniform(-1, 1);
  for (int i = 0; i < 4; ++i) {
    beltsim::SegmentHistory& h = s.history[i];
    h.gap = rng.integer(5) == 0 ? 0.1 : -rng.uniform(0.0, 1e-3);  // 1 in 5 not flagged
    const int kind = rng.integer(4);  // undefined, slip -1, stick, slip +1 with equal odds
    h.state = static_cast<beltsim::StickSlip>(kind == 0 ? -2 : kind - 2);
    h.stickingPosition = rng.uniform(-beltsim::detmath::kPi, beltsim::detmath::kPi) * p.radius;
  }
  return s;
}

struct BalanceResult {
  double forceResidual;      // |sum F_k + F_circle|, relative to the force scale
  double momentResidual;     // |M_points - sum f_t arm|, relative to the moment scale
  double torqueResidual;     // |M_points + T_circle - sum f_t (arm - r)|, relative
  double leverTerm;          // |sum f_t (arm - r)|, relative: how far moment and torque differ
  int activeSegments;
  double checksum;           // sum of all LHS entries (for the cross-target BITS record)
};

BalanceResult checkBalance(const RandomState& s) {
  ContactPair<4> pair;
  BalanceResult result{0, 0, 0, 0, 0, 0};
  if (!pair.setUp(s.parameters).ok()) return BalanceResult{1, 1, 1, 0, -1, 0};
  for (int i = 0; i < 4; ++i) pair.setHistory(i, s.history[i]);
  beltsim::PairForces f;
  beltsim::SegmentOutput out[4];
  if (pair.evaluateNewton(s.q, s.qDot, s.length, s.circle, f) != beltsim::Status::kOk) return BalanceResult{1, 1, 1, 0, -1, 0};
  if (pair.outputs(s.q, s.qDot, s.length, s.circle, out) != beltsim::Status::kOk) return BalanceResult{1, 1, 1, 0, -1, 0};
  beltsim::SegmentPoints<4> points;
  if (beltsim::computeSegmentPoints(s.q, s.qDot, s.length, s.parameters.segmentCount, s.parameters.offset, points) !=
      beltsim::Status::kOk)
    return BalanceResult{1, 1, 1, 0, -1, 0};
  // Expected moment arm of each flagged segment (see the derivation at the top).
  double forceScale = 0.0, expectedMoment = 0.0, expectedLeverDifference = 0.0;
  const double r = s.parameters.radius;
  for (int i = 0; i < s.parameters.segmentCount; ++i) {
    if (s.history[i].gap > 0.0) continue;
    const beltsim::SegmentGeometry g =
        beltsim::segmentGeometry(points.position[i], points.position[i + 1], s.circle.centre, r);
    double arm = g.distance;
    if (!s.parameters.useSegmentNormals) {
      arm = (1.0 - g.rho) * (points.position[i] - s.circle.centre).norm() +
            g.rho * (points.position[i + 1] - s.circle.centre).norm();
    }
    const double ft = out[i].tangentialForce;
    expectedMoment += ft * arm;
    expectedLeverDifference += ft * (arm - r);
    forceScale += std::fabs(out[i].normalForce) + std::fabs(ft);
  }
  if (forceScale == 0.0) forceScale = 1.0;
  const double momentScale = forceScale * (r + std::fabs(s.parameters.offset) + s.length);
  const Vector2 pointForceSum(f.element.dot(contact_test::translationMode(0)),
                              f.element.dot(contact_test::translationMode(1)));
  const double pointMoment = f.element.dot(contact_test::rotationMode(s.q, s.circle.centre));
  result.forceResidual = (pointForceSum + f.circleForce).cwiseAbs().maxCoeff() / forceScale;
  result.momentResidual = std::fabs(pointMoment - expectedMoment) / momentScale;
  result.torqueResidual = std::fabs(pointMoment + f.circleTorque - expectedLeverDifference) / momentScale;
  result.leverTerm = std::fabs(expectedLeverDifference) / momentScale;
  result.activeSegments = f.activeSegments;
  result.checksum = f.element.sum() + f.circleForce.sum() + f.circleTorque;
  return result;
}

void runBalance(minitest::Context& mt_ctx, bool segmentNormals, std::uint64_t seed, const char* label,
                const char* bitsName) {
  contact_test::Lcg rng(seed);
  double worstForce = 0.0, worstMoment = 0.0, worstTorque = 0.0, worstLever = 0.0, checksum = 0.0;
  int active = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const RandomState s = randomState(rng, segmentNormals);
    const BalanceResult b = checkBalance(s);
    MT_EXPECT(b.activeSegments >= 0);
    worstForce = std::fmax(worstForce, b.forceResidual);
    worstMoment = std::fmax(worstMoment, b.momentResidual);
    worstTorque = std::fmax(worstTorque, b.torqueResidual);
    worstLever = std::fmax(worstLever, b.leverTerm);
    active += b.activeSegments;
    checksum += b.checksum;
  }
  MT_EXPECT(worstForce <= 1e-10);
  MT_EXPECT(worstMoment <= 1e-10);
  MT_EXPECT(worstTorque <= 1e-10);
  MT_EXPECT(active > 500);  // most trials had flagged segments
  minitest::print("  ");
  minitest::print(label);
  minitest::print(": max relative residuals force ");
  minitest::printDouble(worstForce);
  minitest::print(", point-force moment ");
  minitest::printDouble(worstMoment);
  minitest::print(", moment + torque - sum f_t (arm - r) ");
  minitest::printDouble(worstTorque);
  minitest::print("; lever-arm term sum f_t (arm - r) itself up to ");
  minitest::printDouble(worstLever);
  minitest::print("\nBITS ");
  minitest::print(bitsName);
  minitest::print(" ");
  minitest::printHexBits(checksum);
  minitest::print("\n");
}

}  // namespace

// docs/model_contact.md §4.8 (SN), eqs. (31)-(34): sum of the point forces (from Q_e by a rigid translation) plus the
// circle's force is zero; the point forces' moment about c is sum delta_i f_t,i; the circle's torque
// balances it up to sum g_i f_t,i (derivation at the top). 500 random states, 1e-10 relative.
MT_TEST(segment_normals_forces_sum_to_zero_and_moments_match_closest_point_law) {
  runBalance(mt_ctx, true, 31, "SN", "contact_balance_sn_checksum");
}

// docs/model_contact.md §4.8 (PWN): same balance with point-wise normals; the moment arm is the rho-weighted mean of
// the endpoint distances |P_k - c|.
MT_TEST(pointwise_normals_forces_sum_to_zero_and_moments_match_endpoint_law) {
  runBalance(mt_ctx, false, 32, "PWN", "contact_balance_pwn_checksum");
}

// The lever-arm identity made concrete: one segment pressed into a circle with a sticking bristle.
// Moment of the point forces about c = delta f_t = (r + g) f_t, circle torque (LHS) = -r f_t, so
// their sum is g f_t != 0: the torque balances the moment only to O(|g| / r).
MT_TEST(circle_torque_balances_point_force_moment_up_to_gap_times_tangential_force) {
  ContactParameters p;
  p.segmentCount = 1;
  p.contactStiffness = 1e5;
  p.friction.frictionCoefficient = 1.0;
  p.friction.bristleStiffness = 1e4;
  p.radius = 0.1;
  ContactPair<4> pair;
  MT_EXPECT(pair.setUp(p).ok());
  const double L = 0.02, g = -1e-3;
  // Straight element along x at height r + g above the centre (0, 0); the bristle anchor 1e-4 m
  // from the current sticking coordinate: f_t = mu_k * 1e-4 = 1 N.
  const Vector8 q = contact_test::elementFromNodes(Vector2(-0.5 * L, p.radius + g), Vector2(1, 0),
                                                   Vector2(0.5 * L, p.radius + g), Vector2(1, 0));
  beltsim::CircleState circle;
  beltsim::SegmentPoints<4> points;
  MT_EXPECT(beltsim::computeSegmentPoints(q, Vector8::Zero(), L, 1, 0.0, points) == beltsim::Status::kOk);
  const beltsim::SegmentKinematics k = beltsim::segmentKinematics(p, points, 0, L, circle);
  beltsim::SegmentHistory sticking;
  sticking.gap = g;
  sticking.state = beltsim::StickSlip::kStick;
  sticking.stickingPosition = k.stickingCoordinate - 1e-4;
  pair.setHistory(0, sticking);
  beltsim::PairForces f;
  MT_EXPECT(pair.evaluateNewton(q, Vector8::Zero(), L, circle, f) == beltsim::Status::kOk);
  const double moment = f.element.dot(contact_test::rotationMode(q, circle.centre));
  MT_EXPECT_REL(f.circleTorque, -p.radius * 1.0, 1e-9);
  MT_EXPECT_REL(moment, (p.radius + g) * 1.0, 1e-9);
  MT_EXPECT_REL(moment + f.circleTorque, g * 1.0, 1e-6);
}
