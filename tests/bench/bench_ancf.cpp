// Cost of one planar ANCF cable element evaluation (model/include/beltsim/element/ancf_cable2d.hpp):
// internal forces only, and forces + both Jacobians, for each integration rule. One iteration
// evaluates one element at a fixed large-deformation state with damping on (all terms active).
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "beltsim/element/ancf_cable2d.hpp"

namespace {

using Element = beltsim::AncfCable2D<double>;
using beltsim::AxialRule;

Element makeElement(AxialRule rule) {
  Element::Parameters p;
  p.length = 0.1;
  p.massPerLength = 0.8288;
  p.EA = 8000.0;
  p.EI = 1.333e-3;
  p.referenceAxialStrain = -0.05;
  p.axialDamping = 25.0;
  p.bendingDamping = 1e-4;
  p.axialRule = rule;
  Element e;
  if (!e.setUp(p).ok()) std::abort();
  return e;
}

void state(Element::Vector8& q, Element::Vector8& qDot) {
  q << 0.01, -0.02, 0.93, 0.21, 0.105, 0.013, 0.97, -0.33;
  qDot << 0.3, -0.1, 0.05, 0.4, -0.25, 0.6, -0.7, 0.15;
}

void BM_Forces(benchmark::State& st, AxialRule rule) {
  const Element e = makeElement(rule);
  Element::Vector8 q, qDot, force;
  state(q, qDot);
  for (auto _ : st) {
    benchmark::DoNotOptimize(q);
    benchmark::DoNotOptimize(e.internalForce(q, qDot, force));
    benchmark::DoNotOptimize(force);
  }
  st.SetItemsProcessed(st.iterations());
}

void BM_ForcesAndJacobian(benchmark::State& st, AxialRule rule) {
  const Element e = makeElement(rule);
  Element::Vector8 q, qDot, force;
  Element::Matrix8 stiffness, damping;
  state(q, qDot);
  for (auto _ : st) {
    benchmark::DoNotOptimize(q);
    benchmark::DoNotOptimize(e.internalForceAndJacobian(q, qDot, force, stiffness, damping));
    benchmark::DoNotOptimize(force);
    benchmark::DoNotOptimize(stiffness);
    benchmark::DoNotOptimize(damping);
  }
  st.SetItemsProcessed(st.iterations());
}

}  // namespace

BENCHMARK_CAPTURE(BM_Forces, scheme_a, AxialRule::kA);
BENCHMARK_CAPTURE(BM_Forces, scheme_b, AxialRule::kB);
BENCHMARK_CAPTURE(BM_Forces, scheme_c, AxialRule::kC);
BENCHMARK_CAPTURE(BM_ForcesAndJacobian, scheme_a, AxialRule::kA);
BENCHMARK_CAPTURE(BM_ForcesAndJacobian, scheme_b, AxialRule::kB);
BENCHMARK_CAPTURE(BM_ForcesAndJacobian, scheme_c, AxialRule::kC);

BENCHMARK_MAIN();
