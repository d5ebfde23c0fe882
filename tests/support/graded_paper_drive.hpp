// The paper's drive on the eulerian mesh, graded from its layout, at rest after its
// statics: the fixture of the eulerian drive's tests (tests/host/test_eulerian_drive.cpp) and of its
// benchmark (tests/bench/bench_eulerian.cpp). Test-side code: it allocates.
#pragma once
#include <cmath>
#include <memory>

#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/system/eulerian_belt_drive.hpp"
#include "beltsim/system/plant.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "eulerian_stepping.hpp"

namespace beltsim::test {

constexpr double kGradedStep = 1e-4;  // s, the paper's

// Graded: the paper's drive at NE eulerian elements, the nodes where the program puts them from the
// layout (eulerian_stations.hpp: a node at every point where the belt meets or leaves a pulley,
// three times the spans' density on the wraps, finer toward their ends: at 24 elements 3 per span of
// 105 mm, 9 per wrap of 19 to 56 mm; at 16, 2 per span, 6 per wrap), statics on the eulerian mesh
// itself (static_equilibrium.hpp). Stepped by the reference stepper unless SteppingOf says otherwise.
template <int NE, template <class> class SteppingOf = beltsim::ReferenceStepper>
struct GradedPaperDriveOf {
  using Material = beltsim::BeltDrivePlant<24>;  // for the configuration's drive parameters only
  using Drive = beltsim::EulerianBeltDrive<NE, 2, 4>;
  using Stepper = SteppingOf<Drive>;
  using V = typename Drive::Vector;

  std::unique_ptr<Material> material = std::make_unique<Material>();
  std::unique_ptr<Drive> drive = std::make_unique<Drive>();
  std::unique_ptr<Stepper> stepper = std::make_unique<Stepper>();
  double loadTorque = 25.0;
  bool giveStepSize = true;  // false: start() leaves the drive without its step size
  double stepSize = kGradedStep;  // s: the drive's and the scenario's step (start's config must use the same)
  double station[NE] = {}, lengths[NE] = {};
  int elementsInPart[4] = {};
  beltsim::BeltPath<2> path;
  beltsim::StaticResult statics;

  static beltsim::PlantConfig paperConfig() { return eulerianPaperConfig(kGradedStep); }
  bool start(const beltsim::PlantConfig& config = paperConfig()) {
    beltsim::PlantConfig materialConfig = config;  // its drive's parameters only; one pass on the material mesh
    materialConfig.integrator.postNewtonPasses = 1;
    if (!material->setUp(materialConfig).ok()) return false;
    const auto& m = material->drive();
    const beltsim::PulleyParameters circles[2] = {m.pulley(0), m.pulley(1)};
    beltsim::PathCircle onPath[2];
    for (int p = 0; p < 2; ++p)
      onPath[p] = beltsim::beltPathCircle(circles[p], m.belt());
    if (!beltsim::buildBeltPath(onPath, 2, path).ok()) return false;
    if (!beltsim::eulerianStations(path, beltsim::MeshGrading{}, station, lengths, elementsInPart).ok()) return false;
    if (!drive->setUp(m.belt(), lengths, circles, 2, m.contact(), m.belt().element.length).ok()) return false;
    V x;
    beltsim::placeOnStations(*drive, path, station, x);
    statics = beltsim::solveStaticEquilibrium(*drive, x, config.statics, m.contact().friction);
    if (statics.status != beltsim::Status::kOk || !statics.converged) return false;
    if (giveStepSize && !drive->setStepSize(stepSize).ok()) return false;
    return startAtRest(*stepper, config, x);
  }

  beltsim::StepStatistics step(int k) {
    return stepPaperScenario(*drive, *stepper, k, stepSize, loadTorque);
  }
  // Steps 1..steps of the paper's scenario; false at the first step that is not kOk.
  bool runSteps(int steps) {
    for (int k = 1; k <= steps; ++k)
      if (step(k).status != beltsim::Status::kOk) return false;
    return true;
  }
  // The axial force in the middle of span `span` (0: from P1 to P2, the tight span; 1: the slack span).
  double spanForce(int span) const { return spanForceOf(span, *drive, stepper->positions(), stepper->velocities()); }
  // The same for another drive of this mesh at (q, v) (a copy of this one's, say).
  double spanForceOf(int span, const Drive& of, const V& q, const V& v) const {
    const double middle = station[0] + 0.5 * path.spanLength[span] + (span == 0 ? 0.0 : path.spanLength[0] + arcLength(1));
    int e = 0;
    while (e + 1 < NE && station[e + 1] <= middle) ++e;
    return of.axialForce(q, v, e, middle - station[e]);
  }
  double arcLength(int circle) const { return path.circle[circle].radius * std::abs(path.arcSweep[circle]); }
  double tightForce() const { return spanForce(0); }
  double slackForce() const { return spanForce(1); }
};

}  // namespace beltsim::test
