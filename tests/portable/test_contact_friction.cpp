// Friction state machine of the bristle model (issue 4; paper [P] Sect. 2.4 eqs. 20-30; docs/model_contact.md §4.5-4.7,
// docs/model_differences.md §10.18-19): stick with f_t = mu_k dx up to mu |f_n|, slip at mu |f_n| with the anchor re-set so
// that the spring is pre-tensioned (no force jump at the next step), and no jump when the sticking
// coordinate crosses the atan2 branch cut at +-pi r.
#include <cmath>

#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/contact/circle_cable_contact.hpp"
#include "minitest.hpp"
#include "test_contact_support.hpp"

using beltsim::ContactPair;
using beltsim::ContactParameters;
using beltsim::FrictionParameters;
using beltsim::SegmentHistory;
using beltsim::Status;
using beltsim::StickSlip;
using beltsim::Vector2;
using beltsim::Vector8;

namespace {

// One segment of the law alone: the start-of-step copy D0, the current copy D, and one accepted
// step = PNS (which may switch) followed by the Newton force with the switched state (what a
// re-solved Newton would use). Returns the Newton force.
struct LawDriver {
  FrictionParameters p;
  double normalForce;
  double period;
  SegmentHistory d0, d;
  double lastError = 0.0;
  double step(double stickingCoordinate) {
    d0 = d;  // beginStep
    const beltsim::TangentialPnsResult r =
        beltsim::pnsTangential(p, d, d0, normalForce, 0.0, stickingCoordinate, period);
    lastError = r.error;
    d.gap = -1.0;
    d.state = r.state;
    d.stickingPosition = r.stickingPosition;
    return beltsim::newtonTangentialForce(p, d, normalForce, 0.0, stickingCoordinate, period);
  }
};

LawDriver makeDriver() {
  LawDriver drv;
  drv.p.frictionCoefficient = 0.5;
  drv.p.bristleStiffness = 1e5;
  drv.p.velocityPenalty = 0.0;
  drv.normalForce = -10.0;  // LHS compression (docs/model_contact.md §4.4): limit mu |f_n| = 5 N
  drv.period = 0.0;
  return drv;
}

}  // namespace

// Eqs. (20)-(21), docs/model_contact.md §4.7: pulled in steps of 7e-6 m the segment sticks with f = mu_k x
// (0.7 N per step) while mu_k x <= mu |f_n| = 5 N; at 5.6 N it switches to slip (+1), the PNS
// error is the excess 0.6 N, and the Newton force is mu |f_n| = 5 N.
MT_TEST(bristle_sticks_with_spring_force_until_coulomb_limit_then_slips_at_limit) {
  LawDriver drv = makeDriver();
  double x = 0.0;
  MT_EXPECT_NEAR(drv.step(x), 0.0, 0.0);  // first contact: anchored at x = 0 (s^D0 = -2)
  MT_EXPECT(drv.d.state == StickSlip::kStick && drv.d.stickingPosition == 0.0);
  for (int k = 1; k <= 7; ++k) {
    x = 7e-6 * k;
    MT_EXPECT_NEAR(drv.step(x), 1e5 * x, 1e-9);
    MT_EXPECT(drv.d.state == StickSlip::kStick);
    MT_EXPECT(drv.lastError == 0.0);
  }
  x = 7e-6 * 8;  // mu_k x = 5.6 N > 5 N
  MT_EXPECT_NEAR(drv.step(x), 5.0, 0.0);
  MT_EXPECT(drv.d.state == StickSlip::kSlipPositive);
  MT_EXPECT_NEAR(drv.lastError, 0.6, 1e-9);
  // Re-anchored, pre-tensioned (docs/model_contact.md §4.7): x - anchor = mu |f_n| / mu_k.
  MT_EXPECT_NEAR(x - drv.d.stickingPosition, 5.0 / 1e5, 1e-15);
  // Further pulling keeps slipping at exactly mu |f_n|, the anchor following x.
  for (int k = 9; k <= 12; ++k) {
    x = 7e-6 * k;
    MT_EXPECT_NEAR(drv.step(x), 5.0, 0.0);
    MT_EXPECT(drv.d.state == StickSlip::kSlipPositive);
    MT_EXPECT_NEAR(x - drv.d.stickingPosition, 5e-5, 1e-15);
  }
}

// docs/model_contact.md §4.7 "pre-tensioned spring": when the pull stops after slipping, the next step sticks (or
// keeps slipping, at the rounding level of the limit) with force mu |f_n| = 5 N: no jump; pulling
// back then unloads the spring linearly from 5 N and finally slips at -5 N.
MT_TEST(stopping_after_slip_continues_at_coulomb_force_without_jump_then_unloads_linearly) {
  LawDriver drv = makeDriver();
  double x = 0.0;
  drv.step(x);
  for (int k = 1; k <= 10; ++k) drv.step(x = 7e-6 * k);  // slipping from k = 8 on
  MT_EXPECT(drv.d.state == StickSlip::kSlipPositive);
  const double xStop = x;
  // Same position: the pre-tensioned spring holds exactly the Coulomb force. Whether the PNS calls
  // this stick or (by one rounding of mu_k (x - anchor) above 5 N) slip, the force is 5 N.
  for (int repeat = 0; repeat < 3; ++repeat) {
    MT_EXPECT_NEAR(drv.step(xStop), 5.0, 1e-9);
    MT_EXPECT(drv.d.state == StickSlip::kStick || drv.d.state == StickSlip::kSlipPositive);
    MT_EXPECT_NEAR(xStop - drv.d.stickingPosition, 5e-5, 1e-15);
  }
  for (int k = 1; k <= 14; ++k) {
    x = xStop - 7e-6 * k;  // unload by 0.7 N per step: 5 -> -4.8 N in stick
    MT_EXPECT_NEAR(drv.step(x), 5.0 - 0.7 * k, 1e-9);
    MT_EXPECT(drv.d.state == StickSlip::kStick);
  }
  x = xStop - 7e-6 * 15;  // would be -5.5 N
  MT_EXPECT_NEAR(drv.step(x), -5.0, 0.0);
  MT_EXPECT(drv.d.state == StickSlip::kSlipNegative);
  MT_EXPECT_NEAR(x - drv.d.stickingPosition, -5e-5, 1e-15);
}

// docs/model_contact.md §4.7 / docs/model_differences.md §10.18: repeated PNS within one step read the anchor from D0, so the anchor does not
// drift, and a PNS that finds the same state reports no error.
MT_TEST(repeated_pns_in_one_step_reads_start_of_step_anchor_and_converges) {
  LawDriver drv = makeDriver();
  drv.step(0.0);
  drv.d0 = drv.d;  // beginStep
  for (int iteration = 0; iteration < 4; ++iteration) {
    const beltsim::TangentialPnsResult r = beltsim::pnsTangential(drv.p, drv.d, drv.d0, -10.0, 0.0, 3e-5, 0.0);
    MT_EXPECT(r.state == StickSlip::kStick && r.stickingPosition == 0.0);
    MT_EXPECT(r.error == 0.0);
    drv.d.state = r.state;
    drv.d.stickingPosition = r.stickingPosition;
  }
  // A slip found in the first PNS switches back to stick when the next Newton solution is below the
  // limit; the anchor is then the start-of-step anchor again (the same-step slip update is discarded).
  beltsim::TangentialPnsResult r = beltsim::pnsTangential(drv.p, drv.d, drv.d0, -10.0, 0.0, 6e-5, 0.0);
  MT_EXPECT(r.state == StickSlip::kSlipPositive);
  MT_EXPECT_NEAR(r.error, 1.0, 1e-9);
  drv.d.state = r.state;
  drv.d.stickingPosition = r.stickingPosition;
  r = beltsim::pnsTangential(drv.p, drv.d, drv.d0, -10.0, 0.0, 4e-5, 0.0);
  MT_EXPECT(r.state == StickSlip::kStick && r.stickingPosition == 0.0);
  MT_EXPECT_NEAR(r.error, 1.0, 1e-9);  // switched back: |excess| = |4 - 5|
}

// Eq. (25), docs/model_contact.md §4.5 item 5: with period 2 pi r, a sticking coordinate that crosses the branch cut
// (x_cur jumps from +pi r - e to -pi r + e) gives the same spring force as the unwrapped motion.
MT_TEST(sticking_coordinate_crossing_plus_minus_pi_r_gives_no_force_jump) {
  LawDriver drv = makeDriver();
  const double r = 0.1, pi = beltsim::detmath::kPi;
  drv.period = 2 * pi * r;
  double x = pi * r - 2e-5;
  drv.step(x);  // anchor here
  double previous = 0.0;
  for (int k = 1; k <= 6; ++k) {
    double unwrapped = pi * r - 2e-5 + 7e-6 * k;
    x = unwrapped > pi * r ? unwrapped - 2 * pi * r : unwrapped;  // what atan2 would give
    const double f = drv.step(x);
    MT_EXPECT_NEAR(f, 0.7 * k, 1e-7);
    MT_EXPECT_NEAR(f - previous, 0.7, 1e-7);
    previous = f;
  }
}

// docs/model_contact.md §4.7 row "mu_k = 0" (§4.11 row 10): without bristle stiffness the slip sign comes from v_t
// and the anchor stays; the Newton force is the velocity penalty in stick and mu |f_n| s in slip.
MT_TEST(without_bristle_stiffness_slip_sign_comes_from_tangential_velocity) {
  FrictionParameters p;
  p.frictionCoefficient = 0.5;
  p.velocityPenalty = 100.0;
  SegmentHistory d0, d;
  d0.state = StickSlip::kStick;
  d0.stickingPosition = 0.25;
  d = d0;
  beltsim::TangentialPnsResult r = beltsim::pnsTangential(p, d, d0, -10.0, -0.06, 99.0, 0.0);  // 6 N
  MT_EXPECT(r.state == StickSlip::kSlipNegative && r.stickingPosition == 0.25);
  MT_EXPECT_NEAR(r.error, 1.0, 1e-12);
  r = beltsim::pnsTangential(p, d, d0, -10.0, 0.04, 99.0, 0.0);  // 4 N: stick
  MT_EXPECT(r.state == StickSlip::kStick && r.error == 0.0);
  d.state = StickSlip::kStick;
  MT_EXPECT_NEAR(beltsim::newtonTangentialForce(p, d, -10.0, 0.04, 99.0, 0.0), 4.0, 1e-12);
  d.state = StickSlip::kSlipNegative;
  MT_EXPECT_NEAR(beltsim::newtonTangentialForce(p, d, -10.0, 0.04, 99.0, 0.0), -5.0, 0.0);
}

// A segment anchored in this very pass (a new contact) has no bristle deflection, so the sign of
// the deflection cannot say which way it slips. When its velocity penalty alone exceeds mu |f_n|
// it slips in the direction of that force, at mu |f_n|, with the anchor pre-tensioned (issue 49;
// bristle_friction.hpp). The paper's sgn(0) = 0 kept it sticking for the step with the whole
// penalty force: 20 N against the limit of 5 N here.
MT_TEST(a_new_contact_whose_velocity_penalty_exceeds_the_coulomb_limit_slips_in_its_direction) {
  FrictionParameters p;
  p.frictionCoefficient = 0.5;  // limit 5 N at f_n = -10 N
  p.bristleStiffness = 1e5;
  p.velocityPenalty = 100.0;
  SegmentHistory d0;  // no contact yet: state undefined
  SegmentHistory d = d0;
  beltsim::TangentialPnsResult r = beltsim::pnsTangential(p, d, d0, -10.0, -0.2, 0.3, 0.0);  // -20 N
  MT_EXPECT(r.state == StickSlip::kSlipNegative);
  MT_EXPECT_NEAR(r.stickingPosition, 0.3 + 5.0 / 1e5, 1e-15);  // spring pre-tensioned to -5 N
  MT_EXPECT_NEAR(r.error, 15.0, 1e-12);
  d.state = r.state;
  d.stickingPosition = r.stickingPosition;
  MT_EXPECT_NEAR(beltsim::newtonTangentialForce(p, d, -10.0, -0.2, 0.3, 0.0), -5.0, 0.0);
  r = beltsim::pnsTangential(p, d0, d0, -10.0, 0.04, 0.3, 0.0);  // 4 N: sticks where it is found
  MT_EXPECT(r.state == StickSlip::kStick && r.stickingPosition == 0.3);
}

// A segment slipping in one direction whose trial force in the next pass points the other way
// has passed through zero relative speed within the step: it sticks at its start-of-step anchor
// for the pass (bristle_friction.hpp; docs/model_differences.md §10.19). Flipping straight to the
// opposite slip let the passes of a 1 ms step alternate between the two directions for ever
// (issue 74: a friction drop under load). Only when the stick pass still finds the force beyond
// mu |f_n| does the next pass slip the other way.
MT_TEST(a_slip_reversed_within_a_step_passes_through_stick) {
  FrictionParameters p;
  p.frictionCoefficient = 0.5;  // limit 5 N at f_n = -10 N
  p.bristleStiffness = 1e5;
  p.velocityPenalty = 100.0;
  SegmentHistory d0;  // slipping negative at the start of the step, the spring at -5 N
  d0.gap = -1e-4;
  d0.state = StickSlip::kSlipNegative;
  d0.stickingPosition = 0.3 + 5.0 / 1e5;
  // The belt has moved back by 0.15 mm: trial force 100 * 0.01 + 1e5 * (-5e-5 + 1.5e-4) = 11 N.
  beltsim::TangentialPnsResult r = beltsim::pnsTangential(p, d0, d0, -10.0, 0.01, 0.3 + 1.5e-4, 0.0);
  MT_EXPECT(r.state == StickSlip::kStick);
  MT_EXPECT(r.stickingPosition == d0.stickingPosition);  // the start-of-step anchor
  MT_EXPECT_NEAR(r.error, 6.0, 1e-9);                    // the excess over the 5 N limit
  // The stick pass finds the force beyond the limit the other way still: now it slips positive.
  SegmentHistory d = d0;
  d.state = r.state;
  r = beltsim::pnsTangential(p, d, d0, -10.0, 0.01, 0.3 + 1.5e-4, 0.0);
  MT_EXPECT(r.state == StickSlip::kSlipPositive);
  MT_EXPECT_NEAR(r.stickingPosition, 0.3 + 1.5e-4 - 5.0 / 1e5, 1e-15);
  // Without a reversal a slipping segment goes on slipping the same way.
  r = beltsim::pnsTangential(p, d0, d0, -10.0, -0.01, 0.3 - 1.5e-4, 0.0);
  MT_EXPECT(r.state == StickSlip::kSlipNegative);
}

// Seed 004 eq. (10) (LHS sign): f_t = mu |f_n| sgn(v_t) (1 - exp(-|v_t| / v0)); no switching.
MT_TEST(continuous_law_follows_seed_004_eq_10) {
  FrictionParameters p;
  p.frictionCoefficient = 0.4;
  p.law = beltsim::TangentialLaw::kContinuous;
  p.characteristicVelocity = 0.01;
  SegmentHistory d;
  const double speeds[] = {-0.05, -0.01, -1e-4, 0.0, 2e-3, 0.03, 1.0};
  for (double v : speeds) {
    const double expected = 0.4 * 20.0 * (v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0)) * (1.0 - std::exp(-std::fabs(v) / 0.01));
    MT_EXPECT_NEAR(beltsim::newtonTangentialForce(p, d, -20.0, v, 0.0, 0.0), expected, 1e-13);
    const beltsim::TangentialPnsResult r = beltsim::pnsTangential(p, d, d, -20.0, v, 0.0, 0.0);
    MT_EXPECT(r.error == 0.0);
  }
}

namespace {

// A straight element (4 segments, length 0.04) lying horizontally at height r - p above a circle
// of radius r at the origin, shifted by u along x. Only the segment above the centre penetrates
// (by p); its neighbours' closest points are >= 0.0025 m sideways, i.e. gap ~ 3e-5 - p > 0.
// lift > 0 raises node 0 by lift (slopes unchanged): the cubic rises by lift (1 - 3 xi^2 + 2 xi^3).
Vector8 horizontalElement(double u, double r, double penetration, double lift = 0.0) {
  const double L = 0.04;
  return contact_test::elementFromNodes(Vector2(-0.013 + u, r - penetration + lift), Vector2(1, 0),
                                        Vector2(-0.013 + L + u, r - penetration), Vector2(1, 0));
}

ContactParameters pressedParameters() {
  ContactParameters p;
  p.segmentCount = 4;
  p.contactStiffness = 1e6;  // f_n = -k_c p = -10 N at p = 1e-5 m
  p.friction.frictionCoefficient = 0.3;  // limit 3 N
  p.friction.bristleStiffness = 2e5;     // 3 N at 1.5e-5 m of sliding
  p.friction.velocityPenalty = 0.0;
  p.radius = 0.1;
  return p;
}

// A pair whose element (horizontalElement, pressed 1e-5 m into the circle) is dragged along x by u
// per accepted step: beginStep, post-Newton step, outputs.
struct DraggedPair {
  ContactPair<4> pair;
  double radius = 0.1;
  beltsim::CircleState circle;
  beltsim::SegmentOutput out[4];
  double error = 0.0;
  bool setUp(const ContactParameters& p) {
    radius = p.radius;
    return pair.setUp(p).ok();
  }
  // speed: the element's velocity along x (m/s), 0 for a quasi-static drag. False if the pair
  // reported anything but kOk.
  [[nodiscard]] bool stepTo(double u, double lift = 0.0, double speed = 0.0) {
    const double L = 0.04, pen = 1e-5;
    pair.beginStep();
    const Vector8 q = horizontalElement(u, radius, pen, lift);
    Vector8 qDot = Vector8::Zero();
    qDot(0) = qDot(4) = speed;
    return pair.postNewtonStep(q, qDot, L, circle, error) == Status::kOk &&
           pair.outputs(q, qDot, L, circle, out) == Status::kOk;
  }
};

}  // namespace

// The same state machine through ContactPair (docs/model_contact.md §4.5-4.7 with the geometry of §4.2): a segment
// pressed with f_n = -10 N and dragged along x. Sliding by u in +x is sliding in -t (t = (-1, 0)),
// so x_cur decreases by u and f_t = -mu_k u (LHS), until |f_t| > mu |f_n| = 3 N; then slip (-1) at
// f_t = -3 N with the anchor pre-tensioned, so stopping gives -3 N again.
MT_TEST(contact_pair_dragged_segment_sticks_then_slips_at_mu_fn_with_pretensioned_anchor) {
  DraggedPair d;
  MT_EXPECT(d.setUp(pressedParameters()));
  ContactPair<4>& pair = d.pair;
  const beltsim::SegmentOutput(&out)[4] = d.out;
  const double& error = d.error;
  const auto stepTo = [&](double u) { MT_EXPECT(d.stepTo(u)); };
  stepTo(0.0);
  MT_EXPECT(pair.history(1).state == StickSlip::kStick);  // segment 1 holds x = 0
  MT_EXPECT(pair.history(0).gap > 0 && pair.history(2).gap > 0 && pair.history(3).gap > 0);
  MT_EXPECT_REL(out[1].normalForce, -10.0, 1e-6);
  MT_EXPECT_NEAR(out[1].tangentialForce, 0.0, 1e-9);
  MT_EXPECT(error > 0.0);  // first contact: gap sign change and state -2 -> 0
  for (int k = 1; k <= 7; ++k) {
    const double u = 2e-6 * k;  // f_t = -0.4 N per step
    stepTo(u);
    MT_EXPECT(pair.history(1).state == StickSlip::kStick);
    MT_EXPECT_NEAR(out[1].tangentialForce, -2e5 * u, 1e-6);
    MT_EXPECT_NEAR(out[1].stickingDisplacement, -u, 1e-12);
    MT_EXPECT(error == 0.0);
  }
  stepTo(2e-6 * 8);  // -3.2 N: slip
  MT_EXPECT(pair.history(1).state == StickSlip::kSlipNegative);
  MT_EXPECT_NEAR(error, 0.2, 1e-5);
  MT_EXPECT_REL(out[1].tangentialForce, -3.0, 1e-6);  // mu |f_n|, with f_n = -k_c p (1 +- 1e-6)
  stepTo(2e-6 * 8);  // stop: pre-tensioned spring gives the Coulomb force again, no jump
  MT_EXPECT_REL(out[1].tangentialForce, -3.0, 1e-6);
  stepTo(2e-6 * 7);  // back by 2e-6: unload by 0.4 N in stick
  MT_EXPECT(pair.history(1).state == StickSlip::kStick);
  MT_EXPECT_REL(out[1].tangentialForce, -2.6, 1e-5);
}

namespace {

// A straight element whose segment 1 is tangent-ish to the circle at polar angle `theta` (the
// normal n points along (cos theta, sin theta)), i.e. the element rotated rigidly about the centre.
// Element direction clockwise around the circle (the circle on its right).
Vector8 elementAtAngle(double theta, double r, double penetration) {
  const double L = 0.02;
  // Built at theta = pi/2 (horizontal, above the centre, running +x), then rotated by theta - pi/2.
  const Vector2 a(-0.0075, r - penetration), b(-0.0075 + L, r - penetration);
  const double turn = theta - 0.5 * beltsim::detmath::kPi;
  return contact_test::elementFromNodes(contact_test::rotate(a, turn), contact_test::rotate(Vector2(1, 0), turn),
                                        contact_test::rotate(b, turn), contact_test::rotate(Vector2(1, 0), turn));
}

}  // namespace

// docs/model_contact.md §4.5 items 1, 5 and docs/model_differences.md §10.9: the element slides around a fixed circle across polar angle pi,
// where atan2 jumps from +pi to -pi (x_c from +pi r to -pi r). The wrapped spring force grows
// linearly, mu_k r (theta - theta0), without the 2 pi r mu_k jump. Rolling (the circle turning
// with the element) keeps the force at 0 across the cut.
MT_TEST(contact_pair_crossing_atan2_branch_cut_has_no_force_jump_sliding_or_rolling) {
  ContactParameters p = pressedParameters();
  p.friction.bristleStiffness = 100.0;  // small, to stay in stick over the whole sweep
  p.friction.frictionCoefficient = 1.0;
  const double L = 0.02, pen = 1e-5, pi = beltsim::detmath::kPi;
  for (int rolling = 0; rolling < 2; ++rolling) {
    ContactPair<4> pair;
    MT_EXPECT(pair.setUp(p).ok());
    beltsim::CircleState circle;
    beltsim::SegmentOutput out[4];
    double error = 0.0;
    const double theta0 = pi - 0.004;
    double previous = 0.0;
    int crossed = 0;
    for (int k = 0; k <= 16; ++k) {
      const double theta = theta0 + 0.0005 * k;  // crosses pi at k = 8
      const Vector8 q = elementAtAngle(theta, p.radius, pen);
      circle.angle = rolling ? theta - theta0 : 0.0;
      pair.beginStep();
      MT_EXPECT(pair.postNewtonStep(q, Vector8::Zero(), L, circle, error) == Status::kOk);
      MT_EXPECT(pair.outputs(q, Vector8::Zero(), L, circle, out) == Status::kOk);
      MT_EXPECT(pair.history(1).state == StickSlip::kStick);
      // Turning the element counter-clockwise by d theta moves its material over the circle along
      // +t (t = n^perp is counter-clockwise), so x_cur grows by r d theta: f_t = +mu_k r (theta - theta0).
      const double expected = rolling ? 0.0 : 100.0 * p.radius * (theta - theta0);
      MT_EXPECT_NEAR(out[1].tangentialForce, expected, 1e-10);
      if (k > 0 && !rolling) MT_EXPECT_NEAR(out[1].tangentialForce - previous, 100.0 * p.radius * 0.0005, 1e-10);
      previous = out[1].tangentialForce;
      beltsim::SegmentPoints<4> points;
      MT_EXPECT(beltsim::computeSegmentPoints(q, Vector8::Zero(), L, 4, 0.0, points) == Status::kOk);
      const beltsim::SegmentGeometry g = beltsim::segmentGeometry(points.position[1], points.position[2], circle.centre, p.radius);
      if (beltsim::detmath::atan2(g.normal(1), g.normal(0)) < 0) ++crossed;
    }
    MT_EXPECT(crossed >= 7);  // the normal's angle did pass the branch cut
  }
}

namespace {
// The dragging test's parameters on a circle of radius 100 m, under StickMemory::kWholeElement.
ContactParameters wholeElementOnFlatCircle() {
  ContactParameters p = pressedParameters();
  p.radius = 100.0;
  p.friction.stickMemory = beltsim::StickMemory::kWholeElement;
  return p;
}
}  // namespace

// StickMemory (issue 33; bristle_friction.hpp): under kWholeElement a sticking segment keeps its
// anchor once its whole element has lain on the circle at the start of a step, until it leaves
// contact. The element of the dragging test above, pressed 1e-5 m into a circle of radius 100 m, has all four
// segments in contact (the circle falls away by at most 0.027^2 / 200 = 3.6e-6 m under it): dragged
// by 2e-6 m per step, every segment keeps its anchor and its spring grows by mu_k 2e-6 m per step,
// as under the paper's rule.
MT_TEST(whole_element_stick_memory_keeps_the_anchors_of_an_element_wholly_in_contact) {
  DraggedPair d;
  MT_EXPECT(d.setUp(wholeElementOnFlatCircle()));
  for (int k = 0; k <= 3; ++k) {
    const double u = 2e-6 * k;
    MT_EXPECT(d.stepTo(u));
    for (int i = 0; i < 4; ++i) {
      MT_EXPECT(d.pair.history(i).gap <= 0.0);
      MT_EXPECT(d.pair.history(i).state == StickSlip::kStick);
      MT_EXPECT_NEAR(d.out[i].stickingDisplacement, -u, 1e-12);
      MT_EXPECT_NEAR(d.out[i].tangentialForce, -2e5 * u, 1e-6);
    }
  }
}

// An element that lay wholly on the circle keeps its anchors while it leaves it (the end of a
// wrap, where the slip arc is): the drag of the test above, then node 0 raised by 1.5e-5 m so that
// segment 0 (its chord at least 1.27e-5 m up) leaves contact while segments 1-3 stay in contact
// (segment 1 lightly, so it may slip). Segments 2 and 3 keep the anchors of the whole element's
// steps and their springs keep growing by mu_k 2e-6 m per step (the tilt moves their closest points
// by < 1e-9 m); segment 0 is no longer held. (Renewing them, as for an element landing, would leave
// them without spring force, as in the next test.)
MT_TEST(whole_element_stick_memory_keeps_the_anchors_of_an_element_leaving_the_circle) {
  DraggedPair d;
  MT_EXPECT(d.setUp(wholeElementOnFlatCircle()));
  for (int k = 0; k <= 4; ++k) {  // springs up to 1.6 N, within mu |f_n| of segments 2 and 3
    const double u = 2e-6 * k;
    MT_EXPECT(d.stepTo(u, k >= 2 ? 1.5e-5 : 0.0));
    MT_EXPECT(k >= 2 ? d.pair.history(0).gap > 0.0 : d.pair.history(0).gap <= 0.0);
    MT_EXPECT(d.pair.history(0).heldByElement == (k == 1));  // held from the step after a whole start
    for (int i = 1; i < 4; ++i) {
      MT_EXPECT(d.pair.history(i).gap <= 0.0);
      MT_EXPECT(d.pair.history(i).heldByElement == (k >= 1));
    }
    for (int i = 2; i < 4; ++i) {
      MT_EXPECT(d.pair.history(i).state == StickSlip::kStick);
      MT_EXPECT_NEAR(d.out[i].stickingDisplacement, -u, 1e-9);
    }
  }
}

// The same drag on the circle of radius 0.1 m, where only segment 1 of the element touches: under
// kWholeElement its anchor is set again where each post-Newton step finds it, so with no sliding
// velocity it carries no tangential force however far it is dragged (the paper's rule: -mu_k u,
// the test above); under kSegment the same run keeps the anchor of the first contact.
MT_TEST(whole_element_stick_memory_renews_the_anchor_of_an_element_partly_off_the_circle) {
  for (int memory = 0; memory < 2; ++memory) {
    ContactParameters p = pressedParameters();
    p.friction.stickMemory = memory ? beltsim::StickMemory::kWholeElement : beltsim::StickMemory::kSegment;
    DraggedPair d;
    MT_EXPECT(d.setUp(p));
    for (int k = 0; k <= 7; ++k) {
      const double u = 2e-6 * k;
      MT_EXPECT(d.stepTo(u));
      MT_EXPECT(d.pair.history(0).gap > 0.0 && d.pair.history(1).gap <= 0.0);
      MT_EXPECT(d.pair.history(1).state == StickSlip::kStick);
      const double expected = memory ? 0.0 : -2e5 * u;
      MT_EXPECT_NEAR(d.out[1].tangentialForce, expected, 1e-6);
    }
  }
}

// The fixed-cost stepping decides states in every Newton iteration: there a segment renewing its
// anchor (sticking at the start of the step, its element partly off the circle, not held) is
// anchored where each iteration finds it, so it pulls with the velocity penalty alone; its kept
// matrix (decidedHistory: a contact without an anchor, the signature's nibble 8 | 6) and its
// Newton-phase forces in the iterations with frozen states (setAnchorlessRenewing, which the
// fixed-cost stepper sets) must take it so. Segment 1 of the dragging test, anchored at u = 0, then
// evaluated slid by 5e-6 m at rest with the anchor the post-Newton step stored: under the fixed-
// cost view no tangential force, so no torque on the circle; under the reference stepping's view,
// and under the paper's rule, the spring pulls with mu_k 5e-6 = 1 N, a torque of r 1 N.
MT_TEST(whole_element_stick_memory_fixed_cost_force_of_a_renewing_segment_is_the_velocity_penalty_alone) {
  for (int memory = 0; memory < 2; ++memory) {
    ContactParameters p = pressedParameters();
    p.friction.stickMemory = memory ? beltsim::StickMemory::kWholeElement : beltsim::StickMemory::kSegment;
    DraggedPair d;
    MT_EXPECT(d.setUp(p));
    MT_EXPECT(d.stepTo(0.0));  // segment 1 anchored at u = 0 (first contact)
    d.pair.beginStep();
    MT_EXPECT(d.pair.history(1).state == StickSlip::kStick);
    const StickSlip decided = memory ? StickSlip::kUndefined : StickSlip::kStick;
    MT_EXPECT(d.pair.decidedHistory(1).state == decided);
    const unsigned nibble = static_cast<unsigned>((d.pair.jacobianSignature(false, true) >> 4) & 15u);
    MT_EXPECT(nibble == (memory ? 8u + 6u : 8u));
    const Vector8 slid = horizontalElement(5e-6, d.radius, 1e-5);
    const double spring = -d.radius * -2e5 * 5e-6;  // circle LHS -r f_t of the anchor at u = 0
    for (int anchorless = 0; anchorless < 2; ++anchorless) {
      d.pair.setAnchorlessRenewing(anchorless == 1);
      beltsim::PairForces f;
      MT_EXPECT(d.pair.evaluateNewton(slid, Vector8::Zero(), 0.04, d.circle, f) == beltsim::Status::kOk);
      MT_EXPECT_NEAR(f.circleTorque, memory && anchorless ? 0.0 : spring, 1e-9);
    }
  }
}

// A belt sliding over a pulley slides at the Coulomb force in every segment, whatever the stick
// memory (issue 49: the capstan law in gross slip). Segment 1 of the dragging test, sliding at
// 0.1 m/s with a velocity penalty of 100 N s/m (10 N against the limit of 3 N), 1e-5 m per step:
// it slips from its first contact on at -3 N. Under kWholeElement its element is partly off the
// circle, so its anchor is renewed every step; with the paper's sgn(0) = 0 such a segment never
// slipped and pulled with the whole penalty force, -10 N, step after step.
MT_TEST(a_segment_sliding_over_the_circle_slips_at_the_coulomb_force_under_either_stick_memory) {
  for (int memory = 0; memory < 2; ++memory) {
    ContactParameters p = pressedParameters();
    p.friction.velocityPenalty = 100.0;
    p.friction.stickMemory = memory ? beltsim::StickMemory::kWholeElement : beltsim::StickMemory::kSegment;
    DraggedPair d;
    MT_EXPECT(d.setUp(p));
    for (int k = 0; k <= 4; ++k) {
      MT_EXPECT(d.stepTo(1e-5 * k, 0.0, 0.1));
      MT_EXPECT(d.pair.history(1).gap <= 0.0);
      MT_EXPECT(d.pair.history(1).state == StickSlip::kSlipNegative);
      MT_EXPECT_REL(d.out[1].tangentialForce, -3.0, 1e-6);
    }
  }
}

// The post-Newton error of a segment that lands on the circle and slips at once is the force the
// landing adds, mu |f_n| (with e_n = k_c |g - g_old| for the contact), not the excess of its
// velocity penalty over the limit: the Newton phase applied no tangential force to a segment that
// was not in contact. Segment 1 of the sliding test above, stored as open by 1e-9 m, lands 1e-5 m
// deep (f_n = -10 N) at 0.1 m/s: e_n = 1e6 (1e-5 + 1e-9) = 10.001 N, e_t = 3 N (the excess would
// be 10 - 3 = 7 N). In gross slip every segment landing on the driving pulley had such an excess,
// which flagged the fixed-cost stepping's steps by the hundred (issue 49).
MT_TEST(a_segment_landing_in_slip_counts_the_force_it_adds_in_the_post_newton_error) {
  ContactParameters p = pressedParameters();
  p.friction.velocityPenalty = 100.0;
  DraggedPair d;
  MT_EXPECT(d.setUp(p));
  MT_EXPECT(d.stepTo(0.0, 0.0, 0.1));
  SegmentHistory open = d.pair.history(1);
  open.gap = 1e-9;
  open.state = StickSlip::kUndefined;
  d.pair.setHistory(1, open);
  MT_EXPECT(d.stepTo(1e-5, 0.0, 0.1));
  MT_EXPECT(d.pair.history(1).state == StickSlip::kSlipNegative);
  MT_EXPECT_NEAR(d.error, 1e6 * (1e-5 + 1e-9) + 3.0, 1e-6);
}

// A slipping segment of an element partly off the circle keeps its anchor at the Coulomb force
// under kWholeElement too: given a slip state (-1) with its anchor 2e-5 m ahead (a spring of 4 N
// against the limit of 3 N), the step keeps slipping at mu |f_n| = 3 N.
MT_TEST(whole_element_stick_memory_leaves_a_slipping_segment_at_the_coulomb_force) {
  ContactParameters p = pressedParameters();
  p.friction.stickMemory = beltsim::StickMemory::kWholeElement;
  DraggedPair d;
  MT_EXPECT(d.setUp(p));
  MT_EXPECT(d.stepTo(0.0));  // anchors segment 1 at x_cur
  SegmentHistory h = d.pair.history(1);
  h.state = StickSlip::kSlipNegative;
  h.stickingPosition += 2e-5;  // x_cur - anchor = -2e-5 m: f_t = -4 N before the limit
  d.pair.setHistory(1, h);
  MT_EXPECT(d.stepTo(0.0));
  MT_EXPECT(d.pair.history(1).state == StickSlip::kSlipNegative);
  MT_EXPECT_REL(d.out[1].tangentialForce, -3.0, 1e-6);
}
