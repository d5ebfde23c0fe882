// A contact pair's Newton block by central differences of its forces (docs/model_contact.md §4.9 allows
// numerical differentiation), with the history frozen: the check of the analytic blocks
// (contact_jacobian.hpp) in the tests and benchmarks.
#pragma once
#include <cmath>

#include "beltsim/contact/circle_cable_contact.hpp"

namespace beltsim {

// LHS vector of the 11 local coordinates (element, circle x, y, phi).
template <int MaxSegments>
Status pairLocalLhs(const ContactPair<MaxSegments>& pair, const typename ContactPair<MaxSegments>::Vector11& position,
                  const typename ContactPair<MaxSegments>::Vector11& velocity, double length,
                  typename ContactPair<MaxSegments>::Vector11& lhs) {
  const Vector8 q = position.template head<8>();
  const Vector8 qDot = velocity.template head<8>();
  CircleState circle;
  circle.centre = Vector2(position(8), position(9));
  circle.angle = position(10);
  circle.velocity = Vector2(velocity(8), velocity(9));
  circle.angularVelocity = velocity(10);
  PairForces f;
  const Status s = pair.evaluateNewton(q, qDot, length, circle, f);
  lhs.template head<8>() = f.element;
  lhs(8) = f.circleForce(0);
  lhs(9) = f.circleForce(1);
  lhs(10) = f.circleTorque;
  return s;
}

// Stiffness dLHS/dq and damping dLHS/dq_dot over the 11 local coordinates, by central
// differences inside this fixed-size block with the history frozen (docs/model_contact.md §4.9 allows numerical
// differentiation; the reference uses forward differences). Zero if no segment is flagged.
// Steps: 1e-7 max(1e-2, |q_j|) for positions (the reference's rule), 1e-7 max(1, |v_j|) for
// velocities. The LHS is affine in the velocities except for the continuous law (scale v0) and
// |f_n| in the slip force, so the velocity step is limited by rounding, eps |LHS| / step, not by
// truncation; the reference's floor 1e-2 (step 1e-9 m/s at rest) made that error ~1e-4 of the
// damping entries when |LHS| / d_c is large (the floor 1 keeps (step / v0)^2 <= 1e-8 for v0 >= 1e-3).
template <int MaxSegments>
Status finiteDifferenceJacobian(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot, double length,
                              const CircleState& circle, typename ContactPair<MaxSegments>::Matrix11& stiffness,
                              typename ContactPair<MaxSegments>::Matrix11& damping) {
using Vector11 = typename ContactPair<MaxSegments>::Vector11;
constexpr int kLocalCoordinates = ContactPair<MaxSegments>::kLocalCoordinates;
  stiffness.setZero();
  damping.setZero();
  if (!pair.anyFlagged()) return Status::kOk;
  Vector11 x, v;
  x << q, circle.centre, circle.angle;
  v << qDot, circle.velocity, circle.angularVelocity;
  Vector11 plus, minus;
  for (int j = 0; j < kLocalCoordinates; ++j) {
    const double h = 1e-7 * std::fmax(1e-2, absOf(x(j)));
    Vector11 xp = x, xm = x;
    xp(j) += h;
    xm(j) -= h;
    Status s = pairLocalLhs(pair, xp, v, length, plus);
    if (s == Status::kOk) s = pairLocalLhs(pair, xm, v, length, minus);
    if (s != Status::kOk) return s;
    stiffness.col(j) = (plus - minus) / (xp(j) - xm(j));
  }
  for (int j = 0; j < kLocalCoordinates; ++j) {
    const double h = 1e-7 * std::fmax(1.0, absOf(v(j)));
    Vector11 vp = v, vm = v;
    vp(j) += h;
    vm(j) -= h;
    Status s = pairLocalLhs(pair, x, vp, length, plus);
    if (s == Status::kOk) s = pairLocalLhs(pair, x, vm, length, minus);
    if (s != Status::kOk) return s;
    damping.col(j) = (plus - minus) / (vp(j) - vm(j));
  }
  return Status::kOk;
}

}  // namespace beltsim
