// The tensioner arm of the arm's tests (host_tensioner_arm, host_tensioner_arm_drive): pivot,
// spring with preload, damping, asymmetric friction and a radial spring, and the planar cross
// product the moment balances use.
#pragma once
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/drive_parameters.hpp"
#include "beltsim/system/tensioner_arm.hpp"

namespace beltsim::test {

inline double cross(const Vector2& a, const Vector2& b) { return a(0) * b(1) - a(1) * b(0); }

inline TensionerArm sampleArm() {
  TensionerArm arm;
  arm.pivot = Vector2(0.3, 0.2);
  arm.inertia = 2e-3;
  arm.stiffness = 40.0;
  arm.preloadAngle = -0.6;
  arm.damping = 0.3;
  arm.frictionTorque[0] = 2.0;
  arm.frictionTorque[1] = 0.5;
  arm.radialStiffness = 1e7;
  return arm;
}

// The three pulleys of the arm drives (host_tensioner_arm_drive, host_energy): P1 and P3 of
// radius `radius`, the middle one (on the arm) of `idlerRadius`, at `centres`, all defaults
// otherwise, and their circles on the belt's middle line (thickness t: radius + t / 2).
inline void armDriveCircles(const Vector2 (&centres)[3], double radius, double idlerRadius, double thickness,
                            PulleyParameters (&circle)[3], PathCircle (&onPath)[3]) {
  for (int p = 0; p < 3; ++p) {
    PulleyParameters& c = circle[p];
    c = PulleyParameters{};
    c.centre = centres[p];
    c.radius = p == 1 ? idlerRadius : radius;
    c.inertia = p == 1 ? 1e-3 : 0.25;
    onPath[p] = PathCircle{c.centre, c.radius + 0.5 * thickness, 1};
  }
}

}  // namespace beltsim::test
