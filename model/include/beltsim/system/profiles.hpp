// Time profiles of drive speeds and load torques (docs/model_drive_and_solver.md §6, paper [P] eq. 37).
#pragma once
#include "beltsim/core/detmath.hpp"

namespace beltsim {

// SmoothStep(x, x0, x1, v0, v1): v0 for x <= x0, v1 for x >= x1, and a half cosine between.
inline double smoothStep(double x, double x0, double x1, double v0, double v1) {
  if (x <= x0) return v0;
  if (x >= x1) return v1;
  return v0 + (v1 - v0) * 0.5 * (1.0 - detmath::cos(detmath::kPi * (x - x0) / (x1 - x0)));
}

// Linear ramp from v0 at t0 to v1 at t1, constant outside (the paper's drive speed omega(t)).
inline double linearRamp(double t, double t0, double t1, double v0, double v1) {
  if (t <= t0) return v0;
  if (t >= t1) return v1;
  return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
}

// A profile: a ramp between two levels, linear or smooth, or a constant (t0 = t1 = 0, v0 = v1).
struct RampProfile {
  enum class Shape : unsigned char { kLinear, kSmooth };
  Shape shape = Shape::kLinear;
  double t0 = 0.0, t1 = 0.0;  // s
  double v0 = 0.0, v1 = 0.0;  // level before t0 and after t1

  double at(double t) const {
    return shape == Shape::kSmooth ? smoothStep(t, t0, t1, v0, v1) : linearRamp(t, t0, t1, v0, v1);
  }
};

}  // namespace beltsim
