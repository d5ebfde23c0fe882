// The integrator's formulas: Newmark or generalized-alpha coefficients for a step size, and the
// predictor of a step (docs/model_drive_and_solver.md §7.2-7.3).
#pragma once
#include "beltsim/stepping/integrator_settings.hpp"

namespace beltsim {

// Coefficients of the integrator for step size h (docs/model_drive_and_solver.md §7.2-7.5).
struct IntegratorCoefficients {
  double alphaM = 0.5, alphaF = 0.5, beta = 0.25, gamma = 0.5;
  double massFactor = 1.0;       // (1 - alpha_m) / (1 - alpha_f)
  double stiffnessFactor = 0.0;  // beta h^2
  double dampingFactor = 0.0;    // gamma h
  double velocityFactor = 0.0;   // gamma' = gamma / (h beta): dv/d(delta)
  double accelerationFactor = 0.0;  // beta' = (1 - alpha_m) / (h^2 beta (1 - alpha_f))

  static IntegratorCoefficients make(const IntegratorSettings& s, double h) {
    IntegratorCoefficients c;
    if (s.newmark) {
      c.alphaM = 0.0;
      c.alphaF = 0.0;
      c.beta = s.newmarkBeta;
      c.gamma = s.newmarkGamma;
    } else {
      const double rho = s.spectralRadius;
      c.alphaM = (2.0 * rho - 1.0) / (rho + 1.0);
      c.alphaF = rho / (rho + 1.0);
      c.gamma = 0.5 + c.alphaF - c.alphaM;
      c.beta = 0.25 * (c.gamma + 0.5) * (c.gamma + 0.5);
    }
    c.massFactor = (1.0 - c.alphaM) / (1.0 - c.alphaF);
    c.stiffnessFactor = c.beta * h * h;
    c.dampingFactor = c.gamma * h;
    c.velocityFactor = c.gamma / (h * c.beta);
    c.accelerationFactor = c.massFactor / (h * h * c.beta);
    return c;
  }
};

// Predictor from the start-of-step state (docs/model_drive_and_solver.md §7.3 step 2; Newmark: alpha_m = alpha_f = 0):
// q, v, a and the algorithmic acceleration part aBarStar from q0, v0, a0, aBar0 with step h.
// The end-of-step acceleration a is predicted as 0 (the reference) or, with constantAcceleration,
// as a0; either way q and v follow from a by the integrator's relations
//   aBar = aBarStar + (1 - alpha_f)/(1 - alpha_m) a,
//   q = q0 + h v0 + h^2 ((1/2 - beta) aBar0 + beta aBar),  v = v0 + h ((1 - gamma) aBar0 + gamma aBar),
// so Newton's corrections keep them consistent from either start.
template <typename Vector>
void predictStep(const IntegratorCoefficients& c, double h, const Vector& q0, const Vector& v0, const Vector& a0,
                 const Vector& aBar0, Vector& q, Vector& v, Vector& a, Vector& aBarStar,
                 bool constantAcceleration = false) {
  q = q0 + h * v0 + (h * h * (0.5 - c.beta)) * aBar0;
  v = v0 + (h * (1.0 - c.gamma)) * aBar0;
  aBarStar = (c.alphaF * a0 - c.alphaM * aBar0) / (1.0 - c.alphaM);
  q += (h * h * c.beta) * aBarStar;
  v += (h * c.gamma) * aBarStar;
  if (!constantAcceleration) {
    a.setZero();
    return;
  }
  const double share = (1.0 - c.alphaF) / (1.0 - c.alphaM);
  q += (h * h * c.beta * share) * a0;
  v += (h * c.gamma * share) * a0;
  a = a0;
}

}  // namespace beltsim
