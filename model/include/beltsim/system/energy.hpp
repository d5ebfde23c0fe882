// Mechanical energy of a belt drive at coordinates q and velocities v: a diagnostic, not used by
// the time integration. Every potential here is the one whose gradient
// the drive's residual uses (LHS convention M a + dV/dq = 0 without dampers, friction or drives),
// so that a drive without dissipation and without prescribed motion keeps
//   E = T + V_elastic + V_gravity + V_contact + V_springs
// up to the time integrator's error (test host_energy).
//
//   T          belt: sum over elements of 1/2 v_e^T M_e v_e with the consistent mass matrix;
//              circles: 1/2 J omega^2, and 1/2 m |v_c|^2 for a moving centre (a tensioner's m is
//              its equivalent mass, pulley + J_arm / L^2, as the drive's residual has it).
//   V_elastic  AncfCable2D::elasticEnergy: the internal force's quadrature rules (axial and bending
//              terms each with its own rule), so Q_int(q, 0) = dV/dq.
//   V_gravity  -sum f_g . q_e with the element's gravity force vector (consistent or lumped): the
//              load is constant, so this is its exact potential (zero at q = 0).
//   V_contact  sum over segments with g <= 0 of k_c |g|^(n+1) / (n + 1) (1/2 k_c g^2 for the
//              linear law), g the segment's gap to the circle (closest point, segment normal).
//              The contact force of a flagged segment, f_n n distributed (1 - rho, rho) to its end
//              points through J_k^T (offset included), is exactly the gradient of this term:
//              dg/dP_i = (1 - rho) n, dg/dP_i+1 = rho n (the closest-point parameter is
//              stationary), dg/dc = -n. The drive applies it to the segments flagged by the last
//              post-Newton step, which are the segments with g <= 0 once that step converged; the
//              bounding-box pre-check skips only pairs with every gap positive. Only for
//              segment normals (useSegmentNormals): point-wise normals are not a gradient, and
//              for the chord gap: the arc gap's radius moves with rho and |v_s| while its force
//              keeps the normal (circle_cable_contact.hpp), so with it this term is the energy of
//              the gap, not a potential of the force.
//   V_springs  floating centre: 1/2 k_s |c - c_0|^2 - F . (c - c_0) (constant applied force);
//              tensioner arm: 1/2 k (preloadAngle - delta)^2 + 1/2 k_r (rho - L)^2.
// Not included: the work of applied torques, speed drives and fixed supports (external), and
// the friction, damper and bristle forces (dissipative or history-dependent).
#pragma once
#include <cmath>

#include "beltsim/system/belt_drive.hpp"

namespace beltsim {

struct DriveEnergy {
  double beltKinetic = 0.0;     // J
  double circleKinetic = 0.0;   // J (rotation and moving centres)
  double elastic = 0.0;         // J, belt strain energy
  double gravity = 0.0;         // J, -sum f_g . q_e
  double contact = 0.0;         // J, penalty potential of the segments with g <= 0
  double springs = 0.0;         // J, floating supports and tensioner arms
  double kinetic() const { return beltKinetic + circleKinetic; }
  double potential() const { return elastic + gravity + contact + springs; }
  double total() const { return kinetic() + potential(); }
};

template <int NE, int NP, int NCS>
Status driveEnergy(const BeltDrive<NE, NP, NCS>& drive, const typename BeltDrive<NE, NP, NCS>::Vector& q,
                   const typename BeltDrive<NE, NP, NCS>::Vector& v, DriveEnergy& out) {
  using Drive = BeltDrive<NE, NP, NCS>;
  out = DriveEnergy{};
  const typename Drive::Element& element = drive.element();
  const double length = drive.belt().element.length;
  for (int e = 0; e < NE; ++e) {
    const Vector8 qe = drive.gatherElement(q, e);
    const Vector8 ve = drive.gatherElement(v, e);
    double kinetic = 0.0, elastic = 0.0;
    Status s = element.kineticEnergy(ve, kinetic);
    if (s != Status::kOk) return s;
    s = element.elasticEnergy(qe, elastic);
    if (s != Status::kOk) return s;
    out.beltKinetic += kinetic;
    out.elastic += elastic;
    out.gravity -= element.gravityForce().dot(qe);
  }
  for (int p = 0; p < drive.pulleyCount(); ++p) {
    const PulleyParameters& c = drive.pulley(p);
    const CircleState cs = drive.circleState(q, v, p);
    if (c.kind == PulleyKind::kFixed) continue;
    out.circleKinetic += 0.5 * c.inertia * cs.angularVelocity * cs.angularVelocity;
    if (c.kind == PulleyKind::kFloating) {
      const Vector2 u = cs.centre - c.centre;
      out.circleKinetic += 0.5 * c.mass * cs.velocity.squaredNorm();
      out.springs += 0.5 * c.supportStiffness * u.squaredNorm() - c.force.dot(u);
    } else if (c.kind == PulleyKind::kTensionerArm) {
      const ArmGeometry& g = drive.armGeometryOf(p);
      const ArmForce f = armForce(c.arm, g, cs.centre, Vector2::Zero(), false, 0.0);
      const double stretch = (cs.centre - c.arm.pivot).norm() - g.length;
      const double wind = c.arm.preloadAngle - f.angle;
      out.circleKinetic += 0.5 * g.equivalentMass * cs.velocity.squaredNorm();
      out.springs += 0.5 * c.arm.stiffness * wind * wind + 0.5 * c.arm.radialStiffness * stretch * stretch;
    }
    for (int e = 0; e < NE; ++e) {
      const ContactParameters& cp = drive.pair(e, p).parameters();
      SegmentPoints<NCS> points;
      const Status s = computeSegmentPoints(drive.gatherElement(q, e), drive.gatherElement(v, e), length,
                                            cp.segmentCount, cp.offset, points);
      if (s != Status::kOk) return s;
      for (int i = 0; i < NCS; ++i) {
        if (i >= cp.segmentCount) break;
        const SegmentGeometry g = segmentGeometry(points.position[i], points.position[i + 1], cs.centre, cp, i);
        out.contact += contactPotential(cp, g.gap);
      }
    }
  }
  if (!isFinite(out.total())) return Status::kNonFiniteValue;
  return Status::kOk;
}

}  // namespace beltsim
