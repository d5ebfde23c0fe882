// What a stepper asks of the System it steps (BeltDrive, or a test's small system): the point it
// evaluates at and how much of the Newton matrix a build must re-evaluate. The System supplies
// (all fixed-size, no heap):
//   static constexpr int kSize;  using Vector = Eigen::Matrix<double, kSize, 1>;
//   Status residual(const IterationPoint&, Vector& r)     r = M a + Q(q, v; D) - Q_ext(t)  (LHS, N)
//   Status factorize(const IterationPoint&, MatrixUpdate, bool& built)  builds and factors the Newton matrix
//        massFactor M + stiffnessFactor dQ/dq + dampingFactor dQ/dv (its own prescribed rows too);
//        MatrixUpdate::kChangedContacts allows it to re-evaluate only what the last PNS changed
//        (built = false: nothing changed, the last factorization holds)
//   Status solve(const Vector& r, Vector& delta)          delta = matrix^-1 (stiffnessFactor r)
//   void beginStep()                                      history: D0 := D
//   void rejectStep()                                     history: D := D0 (a faulted step)
//   Status postNewtonStep(const IterationPoint&, double& error)   updates D, returns e_PNS (N)
#pragma once
#include <cstdint>

#include "beltsim/stepping/integrator_coefficients.hpp"

namespace beltsim {

// How much of the Newton matrix a factorization must re-evaluate. kChangedContacts is requested
// for a later post-Newton pass of a step that already built a matrix, and (reuseJacobian) at the
// start of a step that reuses an earlier step's: the System may then re-evaluate only the parts
// the PNS changed since its last build (the contact pairs whose stick/slip states changed) and
// keep the rest.
enum class MatrixUpdate : std::uint8_t { kFull, kChangedContacts };

// The state the System evaluates at: positions, velocities, accelerations at time t, and the
// Newton-matrix factors for this step.
template <typename Vector>
struct IterationPoint {
  const Vector* q;
  const Vector* v;
  const Vector* a;
  double time;
  const IntegratorCoefficients* coefficients;
};

}  // namespace beltsim
