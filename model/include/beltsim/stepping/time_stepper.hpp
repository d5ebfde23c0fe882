// The stepper a plant or a scenario selects (IntegratorSettings::stepping): the reference
// Newton / post-Newton loops of the paper (reference_stepper.hpp) or the fixed-cost stepping of
// the real-time configurations (fixed_cost_stepper.hpp). Both are kept (each holds only its state
// vectors); the calls go to the selected one.
#pragma once
#include "beltsim/stepping/fixed_cost_stepper.hpp"
#include "beltsim/stepping/reference_stepper.hpp"

namespace beltsim {

template <typename System>
class TimeStepper {
 public:
  using Vector = typename System::Vector;

  ParameterError setUp(const IntegratorSettings& settings, double stepSize) {
    stepping_ = settings.stepping;
    compactBorder_ = settings.compactBorder;
    return fixedCost() ? fixed_.setUp(settings, stepSize) : reference_.setUp(settings, stepSize);
  }
  void initialize(const Vector& q, const Vector& v, const Vector& a, double time) {
    if (fixedCost()) {
      fixed_.initialize(q, v, a, time);
    } else {
      reference_.initialize(q, v, a, time);
    }
  }
  // Start-up work before the first step (the fixed-cost stepping's first matrix build; the
  // reference stepping's choice of border elimination).
  Status prepare(System& system) {
    if (fixedCost()) return fixed_.prepare(system);
    system.setCompactBorder(compactBorder_);
    return Status::kOk;
  }
  StepStatistics step(System& system) { return fixedCost() ? fixed_.step(system) : reference_.step(system); }

  bool fixedCost() const { return stepping_ == Stepping::kFixedCost; }
  const Vector& positions() const { return fixedCost() ? fixed_.positions() : reference_.positions(); }
  const Vector& velocities() const { return fixedCost() ? fixed_.velocities() : reference_.velocities(); }
  const Vector& accelerations() const { return fixedCost() ? fixed_.accelerations() : reference_.accelerations(); }
  double time() const { return fixedCost() ? fixed_.time() : reference_.time(); }
  double stepSize() const { return fixedCost() ? fixed_.stepSize() : reference_.stepSize(); }
  const FixedCostStepper<System>& fixedCostStepper() const { return fixed_; }

 private:
  Stepping stepping_ = Stepping::kReference;
  bool compactBorder_ = false;
  ReferenceStepper<System> reference_;
  FixedCostStepper<System> fixed_;
};

}  // namespace beltsim
