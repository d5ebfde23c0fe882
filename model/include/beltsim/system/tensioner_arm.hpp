// Pivoting tensioner arm: a pulley whose centre c sits on an arm of length L that
// turns about a fixed pivot; a torsional spring (rate k, wound up by `preloadAngle` at the drawn
// position), a viscous damper and an optional friction torque act on the arm.
//
// Model decision (no paper covers it; written down in docs/host_simulator.md, *Pulleys and the
// tensioner arm*): the pulley's centre keeps its two Cartesian unknowns (x, y), exactly as a
// floating pulley, and the arm acts on them through
//   * the arm torque M about the pivot, applied as the force (M / rho) t at the centre, where
//     d = c - pivot, rho = |d|, r = d / rho and t = (-r_y, r_x) (counter-clockwise tangent);
//   * a stiff radial spring-damper k_r (rho - L) + c_r rho' along r, which keeps rho at L. Its
//     force passes through the pivot, so it never enters the moment balance: in equilibrium the
//     arm torque equals the moment of the hub load about the pivot whatever k_r is.
// The arm angle delta (from the drawn position, counter-clockwise) is atan2(r0 x d, r0 . d): a
// function of the unknowns, not an unknown of its own. The arm's inertia J_arm about the pivot
// acts as the extra mass J_arm / L^2 at the centre (isotropic: along t it is exact, along r it
// only changes the frequency of the stiff radial mode).
//
//   M = k (preloadAngle - delta) - c delta' + M_f
//
// The friction torque M_f is an elasto-plastic ("bristle") element like the belt's friction
// (bristle_friction.hpp), with one anchor angle a per arm:
//   M_f = clamp(-k_f (delta - a) - c_f delta', -T_ccw, +T_cw)
// T_ccw resists the arm turning counter-clockwise, T_cw clockwise: the asymmetric damping of
// automotive tensioners. The anchor stays fixed during a step's Newton iterations and is moved in
// the post-Newton step (updateArmAnchor) so that the elastic part never exceeds the bounds, as
// the belt's sticking positions are. Why not a regularized sign function: on the accessory
// example a tanh-like friction left many steps with Newton not converged, the arm torque
// chattering between the two bounds (docs/host_simulator.md, *Pulleys and the tensioner arm*).
#pragma once
#include <cmath>

#include <Eigen/Core>

#include "beltsim/core/detmath.hpp"
#include "beltsim/element/segment_marker.hpp"

namespace beltsim {

struct TensionerArm {
  Vector2 pivot = Vector2::Zero();    // fixed pivot of the arm, m
  double inertia = 0.0;               // J_arm about the pivot without the pulley, kg m^2
  double stiffness = 0.0;             // k, N m/rad
  double preloadAngle = 0.0;          // spring wind-up at the drawn position, rad: M = k * this there
  double damping = 0.0;               // c, N m s/rad
  double frictionTorque[2] = {0.0, 0.0};  // T, N m: [0] against counter-clockwise, [1] against clockwise motion
  double frictionStiffness = 1e4;     // k_f, N m/rad: the friction's stick stiffness
  double frictionDampingRatio = 0.7071067811865476;  // c_f = 2 ratio sqrt(k_f J_eq), J_eq = m_eq L^2
  double radialStiffness = 1e8;       // k_r, N/m: keeps the arm length
  double radialDampingRatio = 1.0;    // c_r = 2 ratio sqrt(k_r m_eq)
};

// The arm's force on the pulley centre, with its derivatives, at centre c and velocity v.
struct ArmForce {
  Vector2 force = Vector2::Zero();             // on the centre, N
  Eigen::Matrix2d stiffness = Eigen::Matrix2d::Zero();  // -d force / d c
  Eigen::Matrix2d damping = Eigen::Matrix2d::Zero();    // -d force / d v
  double angle = 0.0;                          // delta, rad
  double springTorque = 0.0;                   // k (preloadAngle - delta), N m
  double torque = 0.0;                         // M (spring, damper, friction), N m
};

// Geometry of the drawn position, fixed at set-up.
struct ArmGeometry {
  double length = 0.0;           // L = |c0 - pivot|, m
  Vector2 drawnDirection = Vector2(1.0, 0.0);  // r0
  double drawnAngle = 0.0;       // atan2 of r0, rad
  double equivalentMass = 0.0;   // pulley mass + J_arm / L^2, kg
  double radialDamping = 0.0;    // c_r, N s/m
  double frictionDamping = 0.0;  // c_f, N m s/rad
};

inline ArmGeometry armGeometry(const TensionerArm& arm, const Vector2& drawnCentre, double pulleyMass) {
  ArmGeometry g;
  const Vector2 d = drawnCentre - arm.pivot;
  g.length = d.norm();
  if (g.length > 0.0) g.drawnDirection = d / g.length;
  g.drawnAngle = detmath::atan2(d(1), d(0));
  g.equivalentMass = g.length > 0.0 ? pulleyMass + arm.inertia / (g.length * g.length) : pulleyMass;
  g.radialDamping = 2.0 * arm.radialDampingRatio * std::sqrt(arm.radialStiffness * g.equivalentMass);
  g.frictionDamping =
      2.0 * arm.frictionDampingRatio * std::sqrt(arm.frictionStiffness * g.equivalentMass * g.length * g.length);
  return g;
}

// Whether the arm has a friction torque at all.
inline bool hasArmFriction(const TensionerArm& arm) {
  return arm.frictionTorque[0] > 0.0 || arm.frictionTorque[1] > 0.0;
}

// The friction's anchor after a step that ends at arm angle delta, from the anchor at the start
// of the step: the elastic torque -k_f (delta - a) is kept within [-T_ccw, T_cw] (slip moves
// the anchor along; stick keeps it).
inline double updateArmAnchor(const TensionerArm& arm, double startAnchor, double delta) {
  if (!hasArmFriction(arm)) return delta;
  const double elastic = -arm.frictionStiffness * (delta - startAnchor);
  if (elastic < -arm.frictionTorque[0]) return delta - arm.frictionTorque[0] / arm.frictionStiffness;
  if (elastic > arm.frictionTorque[1]) return delta + arm.frictionTorque[1] / arm.frictionStiffness;
  return startAnchor;
}

// `withRates`: false in the static solve (spring forces only, no friction). `anchor`: the
// friction's anchor angle (rad, from the drawn position).
inline ArmForce armForce(const TensionerArm& arm, const ArmGeometry& g, const Vector2& centre, const Vector2& velocity,
                         bool withRates, double anchor) {
  ArmForce f;
  const Vector2 d = centre - arm.pivot;
  const double rho = d.norm();
  if (!(rho > 0.0)) return f;  // the centre on the pivot: no direction (the caller's check fails first)
  const Vector2 r = d / rho;
  const Vector2 t(-r(1), r(0));
  const Vector2 r0 = g.drawnDirection;
  f.angle = detmath::atan2(r0(0) * d(1) - r0(1) * d(0), r0.dot(d));
  f.springTorque = arm.stiffness * (arm.preloadAngle - f.angle);
  f.torque = f.springTorque;
  double radial = arm.radialStiffness * (rho - g.length);
  // d(delta)/dc = t / rho; d(t / rho)/dc = -(t r^T + r t^T) / rho^2.
  const Vector2 lever = t / rho;
  const Eigen::Matrix2d sym = (t * r.transpose() + r * t.transpose()) / (rho * rho);
  double angleSlope = -arm.stiffness;  // d M / d delta
  if (withRates) {
    const double angleRate = lever.dot(velocity);
    double rateSlope = -arm.damping;  // d M / d delta'
    f.torque -= arm.damping * angleRate;
    if (hasArmFriction(arm)) {
      const double friction = -arm.frictionStiffness * (f.angle - anchor) - g.frictionDamping * angleRate;
      if (friction < -arm.frictionTorque[0]) {
        f.torque -= arm.frictionTorque[0];
      } else if (friction > arm.frictionTorque[1]) {
        f.torque += arm.frictionTorque[1];
      } else {
        f.torque += friction;
        angleSlope -= arm.frictionStiffness;
        rateSlope -= g.frictionDamping;
      }
    }
    radial += g.radialDamping * r.dot(velocity);
    f.damping = -rateSlope * lever * lever.transpose() + g.radialDamping * r * r.transpose();
  }
  f.force = f.torque * lever - radial * r;
  // -d/dc of M t / rho (M through delta only) and of -k_r (rho - L) r.
  f.stiffness = -angleSlope * lever * lever.transpose() + f.torque * sym + arm.radialStiffness * r * r.transpose() +
                (arm.radialStiffness * (rho - g.length) / rho) * t * t.transpose();
  return f;
}

}  // namespace beltsim
