// The analytic pair Jacobian (contact_jacobian.hpp) against central finite differences of the
// pair's own LHS (ContactPair::jacobian), for random penetrating states away from switching
// surfaces: every tangential state, offset and no offset, segment and point-wise normals, linear
// and Hertz normal law, bristle and continuous friction. docs/model_contact.md §4.9: analytic derivatives must
// reproduce the derivative of the Newton-phase LHS with the history frozen.
#include <cmath>

#include "beltsim/contact/pair_finite_difference.hpp"
#include "beltsim/contact/contact_jacobian.hpp"
#include "minitest.hpp"

using namespace beltsim;

namespace {

struct Lcg {
  unsigned long long state;
  double uniform() {  // [0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  }
  double symmetric() { return 2.0 * uniform() - 1.0; }
};

constexpr int kSegments = 4;
using Pair = ContactPair<kSegments>;
using Matrix11 = Pair::Matrix11;

struct Case {
  Pair pair;
  Vector8 q, qDot;
  double length = 0.02;
  CircleState circle;
};

// An element wrapped clockwise on a circle of radius 0.1 at (0.05, -0.02), penetrating by up to
// 0.2 mm, with random strain, slope noise and velocities; every segment flagged in contact.
[[nodiscard]] bool makeCase(Lcg& rng, const ContactParameters& base, StickSlip state, Case& c) {
  ContactParameters p = base;
  p.radius = 0.1;
  if (!c.pair.setUp(p).ok()) return false;
  c.circle.centre = Vector2(0.05, -0.02);
  // One draw per statement: the order of evaluation of constructor arguments is unspecified.
  const double vx = 0.3 * rng.symmetric();
  const double vy = 0.3 * rng.symmetric();
  c.circle.velocity = Vector2(vx, vy);
  c.circle.angle = 3.0 * rng.symmetric();
  c.circle.angularVelocity = 10.0 * rng.symmetric();
  const double radius = 0.1 + p.offset * 0.0 - 1e-4 * (1.0 + rng.uniform());
  const double theta0 = 6.0 * rng.symmetric();
  const double sweep = c.length / 0.1;
  for (int node = 0; node < 2; ++node) {
    const double th = theta0 - node * sweep;  // clockwise
    const double stretch = 1.0 + 0.01 * rng.symmetric();
    c.q(4 * node) = c.circle.centre(0) + radius * std::cos(th) + 1e-5 * rng.symmetric();
    c.q(4 * node + 1) = c.circle.centre(1) + radius * std::sin(th) + 1e-5 * rng.symmetric();
    c.q(4 * node + 2) = stretch * std::sin(th) + 0.02 * rng.symmetric();
    c.q(4 * node + 3) = -stretch * std::cos(th) + 0.02 * rng.symmetric();
  }
  for (int i = 0; i < 8; ++i) c.qDot(i) = rng.symmetric();
  SegmentPoints<kSegments> points;
  if (computeSegmentPoints(c.q, c.qDot, c.length, p.segmentCount, p.offset, points) != Status::kOk) return false;
  for (int i = 0; i < p.segmentCount; ++i) {
    const SegmentKinematics k = segmentKinematics(p, points, i, c.length, c.circle);
    SegmentHistory h;
    h.gap = -1e-5;
    h.state = state;
    h.stickingPosition = k.stickingCoordinate - 1e-5 * rng.symmetric();
    c.pair.setHistory(i, h);
  }
  return true;
}

double relativeError(const Matrix11& a, const Matrix11& b) { return (a - b).norm() / b.norm(); }

// general: the general chain (contactPairJacobianGeneral) instead of the path the pair would take.
int checkCases(const ContactParameters& base, unsigned long long seed, double& worstK, double& worstD,
               bool general = false) {
  Lcg rng{seed};
  static Case c;  // static: keeps the Cortex-M stack small
  const StickSlip states[4] = {StickSlip::kStick, StickSlip::kSlipPositive, StickSlip::kSlipNegative,
                               StickSlip::kUndefined};
  int checked = 0;
  for (int trial = 0; trial < 8; ++trial) {
    if (!makeCase(rng, base, states[trial % 4], c)) continue;  // not counted in `checked`
    Matrix11 kFd, dFd, kAn, dAn;
    if (beltsim::finiteDifferenceJacobian(c.pair, c.q, c.qDot, c.length, c.circle, kFd, dFd) != Status::kOk) continue;
    const Status s = general ? contactPairJacobianGeneral(c.pair, c.q, c.qDot, c.length, c.circle, kAn, dAn)
                             : contactPairJacobian(c.pair, c.q, c.qDot, c.length, c.circle, kAn, dAn);
    if (s != Status::kOk) continue;
    const double ek = relativeError(kAn, kFd);
    const double ed = dFd.norm() > 0.0 ? relativeError(dAn, dFd) : dAn.norm();
    if (ek > worstK) worstK = ek;
    if (ed > worstD) worstD = ed;
    ++checked;
  }
  return checked;
}

ContactParameters beltContact() {
  ContactParameters p;
  p.segmentCount = kSegments;
  p.contactStiffness = 4e5;
  p.contactDamping = 8.0;
  p.friction.frictionCoefficient = 0.5;
  p.friction.bristleStiffness = 5e5;
  p.friction.velocityPenalty = 30.0;
  p.offset = -5e-5;
  return p;
}

}  // namespace

#define MT_CHECK_JACOBIAN(params, seed, ...)                             \
  do {                                                                   \
    double worstK = 0.0, worstD = 0.0;                                   \
    MT_EXPECT(checkCases(params, seed, worstK, worstD, ##__VA_ARGS__) == 8); \
    MT_EXPECT(worstK < 1e-6);                                            \
    MT_EXPECT(worstD < 1e-6);                                            \
    if (!(worstK < 1e-6 && worstD < 1e-6)) {                             \
      minitest::print("    worst stiffness error ");                     \
      minitest::printDouble(worstK);                                     \
      minitest::print(", damping ");                                     \
      minitest::printDouble(worstD);                                     \
      minitest::print("\n");                                             \
    }                                                                    \
  } while (0)

MT_TEST(analytic_pair_jacobian_matches_finite_differences_with_offset) {
  MT_CHECK_JACOBIAN(beltContact(), 11);
}

MT_TEST(analytic_pair_jacobian_matches_finite_differences_without_offset) {
  ContactParameters p = beltContact();
  p.offset = 0.0;
  MT_CHECK_JACOBIAN(p, 12);
}

MT_TEST(analytic_pair_jacobian_matches_finite_differences_point_wise_normals) {
  ContactParameters p = beltContact();
  p.useSegmentNormals = false;
  MT_CHECK_JACOBIAN(p, 13);
}

MT_TEST(analytic_pair_jacobian_matches_finite_differences_hertz_law) {
  ContactParameters p = beltContact();
  p.normalExponent = 1.5;
  p.contactStiffness = 4e7;
  MT_CHECK_JACOBIAN(p, 14);
}

MT_TEST(analytic_pair_jacobian_matches_finite_differences_continuous_friction) {
  ContactParameters p = beltContact();
  p.friction.law = TangentialLaw::kContinuous;
  p.friction.characteristicVelocity = 0.5;  // smooth on the scale of the random velocities
  MT_CHECK_JACOBIAN(p, 15);
}

MT_TEST(analytic_pair_jacobian_matches_finite_differences_arc_gap) {
  // Issue 33: the gap to the arc through each segment's ends (its radius moves with rho and the
  // segment's length) and a penetration allowance on the radius.
  ContactParameters p = beltContact();
  p.gapMeasure = SegmentGapMeasure::kArc;
  p.radiusAllowance = 5e-5;
  p.elementSag = 2e-5;  // the element's own sag, e_m 16 xi^2 (1 - xi)^2 (larger than an element
                        // of 0.02 m has on r = 0.1, so that its slope term shows)
  MT_CHECK_JACOBIAN(p, 17);
}

MT_TEST(analytic_pair_jacobian_matches_finite_differences_arc_gap_hertz_law) {
  ContactParameters p = beltContact();
  p.gapMeasure = SegmentGapMeasure::kArc;
  p.elementSag = 2e-5;
  p.normalExponent = 1.5;
  p.contactStiffness = 4e7;
  MT_CHECK_JACOBIAN(p, 18);
}

MT_TEST(general_pair_jacobian_matches_finite_differences_arc_gap) {
  // The general chain, which a pair takes when its segment count is not the drive's shape table's:
  // the same arc gap, allowance and element sag as above.
  ContactParameters p = beltContact();
  p.gapMeasure = SegmentGapMeasure::kArc;
  p.radiusAllowance = 5e-5;
  p.elementSag = 2e-5;
  MT_CHECK_JACOBIAN(p, 19, true);
}

// The Newton block stiffnessFactor K + dampingFactor D that the belt drive assembles
// (contactPairNewtonMatrix applies the factors before mapping to the pair coordinates) against
// the same combination of the finite-difference K and D, with the microcontroller
// configuration's factors (trapezoidal rule, h = 1e-3 s: beta h^2 = 2.5e-7, gamma h = 5e-4).
// The damping part must not vanish at these factors, or the test would check K alone.
MT_TEST(newton_block_is_the_factor_weighted_sum_of_finite_difference_stiffness_and_damping) {
  const double stiffnessFactor = 0.25 * 1e-6, dampingFactor = 0.5 * 1e-3;
  Lcg rng{16};
  static Case c;  // static: keeps the Cortex-M stack small
  const StickSlip states[3] = {StickSlip::kStick, StickSlip::kSlipPositive, StickSlip::kSlipNegative};
  double worst = 0.0;
  int checked = 0;
  for (int trial = 0; trial < 6; ++trial) {
    MT_EXPECT(makeCase(rng, beltContact(), states[trial % 3], c));
    SegmentShapeTable<kSegments> table;
    table.build(c.length, kSegments);
    Matrix11 kFd, dFd, block;
    if (beltsim::finiteDifferenceJacobian(c.pair, c.q, c.qDot, c.length, c.circle, kFd, dFd) != Status::kOk) continue;
    if (contactPairNewtonMatrix(c.pair, c.q, c.qDot, table, c.circle, stiffnessFactor, dampingFactor, block) !=
        Status::kOk)
      continue;
    const Matrix11 expected = stiffnessFactor * kFd + dampingFactor * dFd;
    MT_EXPECT((dampingFactor * dFd).norm() > 1e-3 * expected.norm());
    const double e = relativeError(block, expected);
    if (e > worst) worst = e;
    ++checked;
  }
  MT_EXPECT(checked == 6);
  MT_EXPECT(worst < 1e-6);
}

// Point-wise normals have no combined form: the function refuses them instead of returning a
// wrong block (the belt drive takes contactPairJacobianGeneral for them).
MT_TEST(newton_block_refuses_point_wise_normals) {
  ContactParameters p = beltContact();
  p.useSegmentNormals = false;
  Lcg rng{17};
  static Case c;
  MT_EXPECT(makeCase(rng, p, StickSlip::kStick, c));
  SegmentShapeTable<kSegments> table;
  table.build(c.length, kSegments);
  Matrix11 block;
  MT_EXPECT(contactPairNewtonMatrix(c.pair, c.q, c.qDot, table, c.circle, 1.0, 1.0, block) ==
            Status::kInvalidParameter);
}

// The change of a pair's Newton block when one segment switches (contactSegmentSwitchBlock, the
// fixed-cost stepper's switch columns) is the block with that segment alone in its new history
// minus the block with it alone in its old one (both by contactPairNewtonMatrix): a stick -> slip
// switch and a contact made (old history out of contact). Up to the rounding of the two maps.
MT_TEST(switch_block_is_the_difference_of_the_two_single_segment_blocks) {
  const double stiffnessFactor = 0.25 * 1e-6, dampingFactor = 0.5 * 1e-3;
  Lcg rng{18};
  static Case c;           // static: keeps the Cortex-M stack small
  static Pair single;
  MT_EXPECT(makeCase(rng, beltContact(), StickSlip::kStick, c));
  SegmentShapeTable<kSegments> table;
  table.build(c.length, kSegments);
  const int i = 2;
  SegmentHistory stick = c.pair.history(i), slip = stick, open = stick;
  slip.state = StickSlip::kSlipPositive;
  open.gap = 0.1;
  open.state = StickSlip::kUndefined;
  const SegmentHistory befores[2] = {stick, open};
  const SegmentHistory afters[2] = {slip, stick};
  double worst = 0.0, smallest = 1e300;
  for (int s = 0; s < 2; ++s) {
    Matrix11 blocks[2];
    const SegmentHistory* histories[2] = {&befores[s], &afters[s]};
    for (int side = 0; side < 2; ++side) {
      single = c.pair;
      for (int k = 0; k < kSegments; ++k) {
        SegmentHistory h = c.pair.history(k);
        if (k == i) h = *histories[side];
        else h.gap = 0.1;
        single.setHistory(k, h);
      }
      MT_EXPECT(contactPairNewtonMatrix(single, c.q, c.qDot, table, c.circle, stiffnessFactor, dampingFactor,
                                        blocks[side]) == Status::kOk);
    }
    Matrix11 change;
    MT_EXPECT(contactSegmentSwitchBlock(c.pair, c.q, c.qDot, table, c.circle, i, befores[s], afters[s],
                                        stiffnessFactor, dampingFactor, change) == Status::kOk);
    const Matrix11 expected = blocks[1] - blocks[0];
    const double e = relativeError(change, expected);
    if (e > worst) worst = e;
    if (expected.norm() < smallest) smallest = expected.norm();
  }
  MT_EXPECT(smallest > 0.0);  // both switches change the block
  MT_EXPECT(worst < 1e-12);
}
