// Benchmarks of the circle-to-cable contact (issue 4): cost per segment of the Newton force
// evaluation, the post-Newton step and the (finite-difference) Jacobian of one pair, and the PNS
// over all element-circle pairs of a belt drive with and without the bounding-box pre-check.
// Prints the share of element-circle pairs the box skips.
//
// Belt-drive-like configuration: pulleys of radius 0.1 m at (0, 0) and (0.5, 0); a belt of 60
// elements wrapped around them (arcs and tangent spans, docs/model_start_and_benchmark.md §8.1), nodes on the centreline of
// radius 0.1 + 5e-5 m with unit-tangent slopes; segment points offset by h_o = -5e-5 m onto the
// inner surface; contact radius 0.1 m (the inner surface touches the pulley; the brief's
// "0.1 + 5e-5" is the centreline radius); 4 segments per element; k_c etc. as docs/model_start_and_benchmark.md §9.2 (n_e = 60).
#include <benchmark/benchmark.h>

#include <cstdio>

#include "../portable/test_contact_support.hpp"
#include "beltsim/contact/pair_finite_difference.hpp"
#include "beltsim/contact/circle_cable_contact.hpp"

namespace {

using beltsim::ContactPair;
using beltsim::ContactParameters;
using beltsim::Vector2;
using beltsim::Vector8;
using Pair = ContactPair<4>;

constexpr int kElements = 60;
constexpr int kSegments = 4;

ContactParameters beltParameters(bool useBox, double contactRadius) {
  ContactParameters p;
  p.segmentCount = kSegments;
  p.contactStiffness = 1675516.08;  // docs/model_start_and_benchmark.md §9.2, n_e = 60, n_cs = 4
  p.contactDamping = 33.5103;
  p.friction.frictionCoefficient = 0.5;
  p.friction.bristleStiffness = 2094395.10;
  p.friction.velocityPenalty = 134.8244;
  p.radius = contactRadius;
  p.offset = -5e-5;
  p.useBoundingBox = useBox;
  return p;
}

struct BeltDrive {
  contact_test::TwoPulleyBelt belt{0.5, 0.1 + 5e-5, kElements};
  beltsim::CircleState circle[2];
  Vector8 q[kElements], qDot[kElements];
  Pair pairs[kElements][2];
  bool ok = true;  // every set-up and post-Newton step returned kOk

  BeltDrive(bool useBox, double contactRadius) {
    circle[1].centre = Vector2(0.5, 0.0);
    const double speed = 1.2;  // m/s: 12 rad/s at 0.1 m (docs/model_start_and_benchmark.md §9.1)
    circle[0].angularVelocity = circle[1].angularVelocity = -speed / belt.radius;
    for (int e = 0; e < kElements; ++e) {
      belt.element(e, 0.0, speed, q[e], qDot[e]);
      for (int j = 0; j < 2; ++j) {
        ok = ok && pairs[e][j].setUp(beltParameters(useBox, contactRadius)).ok();
        double error;
        ok = ok && pairs[e][j].postNewtonStep(q[e], qDot[e], belt.elementLength(), circle[j], error) ==
                       beltsim::Status::kOk;  // initial contact set
        pairs[e][j].beginStep();
      }
    }
  }
  double pnsAll() {
    double worst = 0.0;
    for (int e = 0; e < kElements; ++e)
      for (int j = 0; j < 2; ++j) {
        double error = 0.0;
        ok = ok && pairs[e][j].postNewtonStep(q[e], qDot[e], belt.elementLength(), circle[j], error) ==
                       beltsim::Status::kOk;
        worst = error > worst ? error : worst;
      }
    return worst;
  }
};

// The pair of a fully wrapped element (on the arc of pulley 0) with all segments in contact.
struct WrappedPair {
  BeltDrive drive{true, 0.1};
  int element = 0;
  WrappedPair() {
    for (int e = 0; e < kElements; ++e) {
      int flagged = 0;
      for (int i = 0; i < kSegments; ++i) flagged += drive.pairs[e][0].history(i).gap <= 0.0 ? 1 : 0;
      if (flagged == kSegments) {
        element = e;
        break;
      }
    }
  }
  Pair& pair() { return drive.pairs[element][0]; }
  const Vector8& q() const { return drive.q[element]; }
  const Vector8& qDot() const { return drive.qDot[element]; }
  double length() const { return drive.belt.elementLength(); }
  const beltsim::CircleState& circle() const { return drive.circle[0]; }
};

WrappedPair& wrapped() {
  static WrappedPair w;
  return w;
}

void perSegment(benchmark::State& state, int segments) {
  state.counters["s_per_segment"] =
      benchmark::Counter(segments, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_EvaluateNewton(benchmark::State& state) {
  WrappedPair& w = wrapped();
  beltsim::PairForces forces;
  for (auto _ : state) {
    if (w.pair().evaluateNewton(w.q(), w.qDot(), w.length(), w.circle(), forces) != beltsim::Status::kOk) {
      state.SkipWithError("the wrapped pair reported a status other than kOk");
      break;
    }
    benchmark::DoNotOptimize(forces);
  }
  perSegment(state, kSegments);
}
BENCHMARK(BM_EvaluateNewton);

void BM_PostNewtonStep(benchmark::State& state) {
  WrappedPair& w = wrapped();
  double error = 0.0;
  for (auto _ : state) {
    if (w.pair().postNewtonStep(w.q(), w.qDot(), w.length(), w.circle(), error) != beltsim::Status::kOk) {
      state.SkipWithError("the wrapped pair reported a status other than kOk");
      break;
    }
    benchmark::DoNotOptimize(error);
  }
  perSegment(state, kSegments);
}
BENCHMARK(BM_PostNewtonStep);

void BM_Jacobian(benchmark::State& state) {
  WrappedPair& w = wrapped();
  Pair::Matrix11 stiffness, damping;
  for (auto _ : state) {
    if (beltsim::finiteDifferenceJacobian(w.pair(), w.q(), w.qDot(), w.length(), w.circle(), stiffness, damping) != beltsim::Status::kOk) {
      state.SkipWithError("the wrapped pair reported a status other than kOk");
      break;
    }
    benchmark::DoNotOptimize(stiffness);
    benchmark::DoNotOptimize(damping);
  }
  perSegment(state, kSegments);
}
BENCHMARK(BM_Jacobian);

// PNS over all 120 element-circle pairs of the belt drive: with / without the bounding box.
void BM_BeltPns(benchmark::State& state) {
  static BeltDrive withBox(true, 0.1), withoutBox(false, 0.1);
  BeltDrive& drive = state.range(0) ? withBox : withoutBox;
  for (auto _ : state) benchmark::DoNotOptimize(drive.pnsAll());
  if (!drive.ok) state.SkipWithError("a contact pair reported a status other than kOk");
  state.counters["s_per_pair"] =
      benchmark::Counter(2 * kElements, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_BeltPns)->Arg(1)->Arg(0)->ArgName("box");

// Share of element-circle pairs the box skips: by the box test itself (inflated by |h_o| + 1e-9 m,
// as ContactPair does), and cross-checked by comparing the gaps stored by pairs with and without
// the box (a skipped pair stores surrogates).
void printSkipShare(double contactRadius) {
  BeltDrive withBox(true, contactRadius), withoutBox(false, contactRadius);
  withBox.pnsAll();
  withoutBox.pnsAll();
  if (!withBox.ok || !withoutBox.ok) std::printf("a contact pair reported a status other than kOk\n");
  int separated = 0, surrogate = 0, inContact = 0;
  for (int e = 0; e < kElements; ++e)
    for (int j = 0; j < 2; ++j) {
      beltsim::BoundingBox box = beltsim::elementBoundingBox(withBox.q[e], withBox.belt.elementLength());
      box.inflate(5e-5 + 1e-9);
      separated += box.separatedFromCircle(withBox.circle[j].centre, contactRadius) ? 1 : 0;
      bool differs = false, flagged = false;
      for (int i = 0; i < kSegments; ++i) {
        differs = differs || withBox.pairs[e][j].history(i).gap != withoutBox.pairs[e][j].history(i).gap;
        flagged = flagged || withoutBox.pairs[e][j].history(i).gap <= 0.0;
      }
      surrogate += differs ? 1 : 0;
      inContact += flagged ? 1 : 0;
    }
  std::printf(
      "belt drive (60 elements, pulleys r = 0.1 m, d = 0.5 m, contact radius %.5f m): %d of %d element-circle "
      "pairs skipped by the bounding box (%.1f %%; cross-check by stored surrogate gaps: %d); pairs with a "
      "segment in contact: %d\n",
      contactRadius, separated, 2 * kElements, 100.0 * separated / (2 * kElements), surrogate, inContact);
}

}  // namespace

int main(int argc, char** argv) {
  printSkipShare(0.1);
  printSkipShare(0.1 + 5e-5);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
