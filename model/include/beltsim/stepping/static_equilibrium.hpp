// Static equilibrium of the belt drive before the dynamic run (docs/model_drive_and_solver.md §7.9, docs/model_start_and_benchmark.md §8.3-8.4): circle
// rotations locked, node 0's x locked (the frictionless belt could otherwise slide around the
// pulleys), friction off (mu = 0, a tiny bristle stiffness so that anchors are computed), gravity
// stepped geometrically with a mass-proportional stabilizer that vanishes at full load. Bounded:
// at most loadSteps x maxPns x maxNewton iterations.
#pragma once
#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"

namespace beltsim {

struct StaticSettings {
  int loadSteps = 10;          // geometric load steps
  double loadRange = 1e4;      // first load factor = 1 / loadRange
  double stabilizer = 1e5;     // s_Lambda = (1 - Lambda^2) stabilizer
  int maxNewtonIterations = 25;
  double relativeTolerance = 1e-6;
  double absoluteTolerance = 1e-6;
  int maxPnsIterations = 5;
  double pnsTolerance = 1.0;   // N (static defaults of the reference)
  double staticBristleStiffness = 1e-8;
  double settlePnsTolerance = 1e-6;   // N, final full-load stage: until no flag changes
  double equilibriumTolerance = 1e-6; // N, final residual required for `converged`
};

struct StaticResult {
  Status status = Status::kOk;
  bool converged = false;       // every Newton converged and the final residual is small
  int newtonIterations = 0;     // total
  double residualNorm = 0.0;    // at full load without stabilizer, N
};

// The starting point of the static solve (docs/model_start_and_benchmark.md §8.1): belt nodes on the path, circle centres at
// their rest positions, rotations and everything else 0; `start` as in placeBeltNodes.
template <typename Drive, int MaxPulleys>
void placeOnPath(const Drive& drive, const BeltPath<MaxPulleys>& path, typename Drive::Vector& q,
                 double start = 0.0) {
  q.setZero();
  Eigen::Matrix<double, 4 * Drive::kElements, 1> nodes;
  placeBeltNodes(path, Drive::kElements, nodes, start);
  q.template head<4 * Drive::kElements>() = nodes;
  for (int p = 0; p < Drive::kPulleys; ++p) {
    q(Drive::pulleyDof(p, 0)) = drive.pulley(p).centre(0);
    q(Drive::pulleyDof(p, 1)) = drive.pulley(p).centre(1);
  }
}

template <typename Drive>
StaticResult solveStaticEquilibrium(Drive& drive, typename Drive::Vector& q, const StaticSettings& settings,
                                    const FrictionParameters& dynamicFriction) {
  using Vector = typename Drive::Vector;
  StaticResult result;
  result.converged = true;
  FrictionParameters staticFriction = dynamicFriction;
  staticFriction.frictionCoefficient = 0.0;
  staticFriction.bristleStiffness = settings.staticBristleStiffness;
  staticFriction.law = TangentialLaw::kBristle;
  const ParameterError friction = drive.setFriction(staticFriction);
  if (!friction.ok()) {
    result.status = friction.status;
    result.converged = false;
    return result;
  }
  drive.setMode(Drive::Mode::kStatic);
  // Flag the contacts of the initial geometry before the first Newton (docs/model_start_and_benchmark.md §8.4). Without it the
  // first solve runs without contact, the pre-tensioned belt contracts into the pulleys against
  // only the stabilizer, and Newton has to recover from deep penetration.
  const Vector zero = Vector::Zero();
  drive.initializeContactHistory(q, zero);
  const Vector locks = q;
  Vector previous = q;
  IntegratorCoefficients unused;
  const IterationPoint<Vector> point{&q, &zero, &zero, 0.0, &unused};
  // One load level: bounded PNS loop around a bounded Newton solve. Returns false on a fault.
  const auto solveLevel = [&](double loadFactor, double stabilizer, double pnsTolerance) {
    drive.setStaticLoad(loadFactor, stabilizer, previous, locks);
    drive.beginStep();
    for (int k = 1; k <= settings.maxPnsIterations; ++k) {
      Vector r;
      Status s = drive.residual(point, r);
      if (s != Status::kOk) { result.status = s; return false; }
      double initial = r.norm();
      if (initial < settings.absoluteTolerance) initial = 2.0 * settings.absoluteTolerance;
      bool converged = r.norm() <= settings.absoluteTolerance;
      for (int j = 1; j <= settings.maxNewtonIterations && !converged; ++j) {
        s = drive.factorize(point);
        Vector delta;
        if (s == Status::kOk) s = drive.solve(r, delta);
        if (s != Status::kOk) { result.status = s; return false; }
        q -= delta;
        ++result.newtonIterations;
        s = drive.residual(point, r);
        if (s != Status::kOk) { result.status = s; return false; }
        const double res = r.norm();
#ifdef BELTSIM_TRACE_STATIC
        std::printf("static load %.3e pns %d newton %d res %.6e\n", loadFactor, k, j, res);
#endif
        if (j == 1 && res > initial) initial = res;
        converged = res / initial <= settings.relativeTolerance || res <= settings.absoluteTolerance;
      }
      if (!converged) result.converged = false;
      double error = 0.0;
      s = drive.postNewtonStep(point, error);
      if (s != Status::kOk) { result.status = s; return false; }  // non-finite or degenerate
      if (error <= pnsTolerance) break;
    }
    previous = q;
    return true;
  };
  double loadFactor = 1.0 / settings.loadRange;
  const double growth = settings.loadSteps > 1 ? detmath::exp(detmath::log(settings.loadRange) / (settings.loadSteps - 1)) : 1.0;
  for (int step = 1; step <= settings.loadSteps; ++step) {
    if (step == settings.loadSteps) loadFactor = 1.0;
    if (!solveLevel(loadFactor, (1.0 - loadFactor * loadFactor) * settings.stabilizer, settings.pnsTolerance)) {
      result.converged = false;
      return result;
    }
    loadFactor *= growth;
  }
  // Settle at full load without stabilizer until no contact flag changes any more: the
  // reference's static PNS tolerance (1 N) lets a segment at the edge of a contact arc change its
  // flag after the last Newton solve, which would leave a residual of ~0.1 N at the start.
  if (!solveLevel(1.0, 0.0, settings.settlePnsTolerance)) {
    result.converged = false;
    return result;
  }
  // Final residual at full load with the final contact flags.
  drive.setStaticLoad(1.0, 0.0, previous, locks);
  Vector r;
  const Status s = drive.residual(point, r);
  result.residualNorm = r.norm();
  if (s != Status::kOk) result.status = s;
  if (!(result.residualNorm <= settings.equilibriumTolerance)) result.converged = false;
  drive.setMode(Drive::Mode::kDynamic);
  const ParameterError restored = drive.setFriction(dynamicFriction);
  if (!restored.ok()) {
    result.status = restored.status;
    result.converged = false;
  }
  drive.initializeContactHistory(q, zero);
  return result;
}

}  // namespace beltsim
