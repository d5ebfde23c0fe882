// Pivoting tensioner arm (issue 16, model in tensioner_arm.hpp): the arm's force on the pulley
// centre, its derivatives and its friction. References: central differences for the Newton matrix
// entries; the elasto-plastic friction law's bounds. The arm in a drive:
// test_tensioner_arm_drive.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "beltsim/system/tensioner_arm.hpp"
#include "sample_tensioner_arm.hpp"

namespace {
using namespace beltsim;
using beltsim::test::sampleArm;

TEST(TensionerArm, ForceDerivativesMatchCentralDifferences) {
  // Reference: -d force / d c and -d force / d v by central differences (step 1e-7 m, 1e-7 m/s)
  // at a point off the drawn position, moving, with the radial spring active, once with the
  // friction sticking (anchor 1e-5 rad from the arm: its stiffness and damping count) and once
  // sliding (anchor 0.1 rad away: a constant torque). The position derivative leaves out how the
  // rate terms change with c (the arm's t / rho changes the angle rate): it is checked with zero
  // velocity, where that term vanishes.
  TensionerArm arm = sampleArm();
  arm.frictionTorque[0] = 20.0;
  arm.frictionTorque[1] = 10.0;
  const Vector2 drawn(0.2, 0.2);
  const ArmGeometry g = armGeometry(arm, drawn, 0.4);
  const Vector2 c(0.2031, 0.2117), v(0.0013, -0.0021);
  const double h = 1e-7;
  const double delta = armForce(arm, g, c, Vector2::Zero(), false, 0.0).angle;
  for (const double anchor : {delta + 1e-5, delta + 0.1}) {
    const ArmForce atRest = armForce(arm, g, c, Vector2::Zero(), true, anchor);
    const ArmForce moving = armForce(arm, g, c, v, true, anchor);
    for (int j = 0; j < 2; ++j) {
      Vector2 dc = Vector2::Zero();
      dc(j) = h;
      const Vector2 dK = -(armForce(arm, g, c + dc, Vector2::Zero(), true, anchor).force -
                           armForce(arm, g, c - dc, Vector2::Zero(), true, anchor).force) / (2 * h);
      const Vector2 dD =
          -(armForce(arm, g, c, v + dc, true, anchor).force - armForce(arm, g, c, v - dc, true, anchor).force) / (2 * h);
      for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(atRest.stiffness(i, j), dK(i), 1e-6 * atRest.stiffness.norm()) << anchor << ": " << i << "," << j;
        EXPECT_NEAR(moving.damping(i, j), dD(i), 1e-6 * moving.damping.norm()) << anchor << ": " << i << "," << j;
      }
    }
  }
  // The spring torque at the drawn position is k times the preload angle.
  EXPECT_DOUBLE_EQ(armForce(arm, g, drawn, Vector2::Zero(), false, 0.0).springTorque, arm.stiffness * arm.preloadAngle);
}

TEST(TensionerArm, FrictionTorqueIsBoundedByItsDirectionsValueAndMovesTheAnchorOnlyInSlip) {
  // Reference: the elasto-plastic friction torque (tensioner_arm.hpp) never exceeds T_ccw against
  // counter-clockwise motion nor T_cw against clockwise motion (asymmetric damping); the anchor
  // stays while the elastic torque is within the bounds and follows the arm at a lag of T / k_f
  // when it is not.
  TensionerArm arm = sampleArm();
  arm.stiffness = 0.0;
  arm.damping = 0.0;
  const Vector2 drawn(0.2, 0.2);
  const ArmGeometry g = armGeometry(arm, drawn, 0.4);
  const Vector2 t(0.0, -1.0);  // counter-clockwise tangent of the arm pointing in -x
  const double fast = 10.0;    // rad/s: c_f * rate far beyond both bounds
  EXPECT_DOUBLE_EQ(armForce(arm, g, drawn, fast * g.length * t, true, 0.0).torque, -arm.frictionTorque[0]);
  EXPECT_DOUBLE_EQ(armForce(arm, g, drawn, -fast * g.length * t, true, 0.0).torque, arm.frictionTorque[1]);
  // At rest 1e-5 rad from the anchor: the elastic torque k_f * 1e-5 = 0.1 N m, within both bounds.
  EXPECT_NEAR(armForce(arm, g, drawn, Vector2::Zero(), true, -1e-5).torque, -0.1, 1e-9);
  EXPECT_DOUBLE_EQ(updateArmAnchor(arm, -1e-5, 0.0), -1e-5);  // stick
  // 0.01 rad past the anchor counter-clockwise: elastic 100 N m > T_ccw: slip, anchor at T_ccw / k_f.
  EXPECT_DOUBLE_EQ(updateArmAnchor(arm, 0.0, 0.01), 0.01 - arm.frictionTorque[0] / arm.frictionStiffness);
  EXPECT_DOUBLE_EQ(updateArmAnchor(arm, 0.0, -0.01), -0.01 + arm.frictionTorque[1] / arm.frictionStiffness);
}

}  // namespace
