// The paper's quasi-static, frictionless test (paper [P] Sect. 3, Figs. 9-10; issue 5): a circle
// of r = 0.35 m on a spring of k = 1 N/m to ground is pushed by a lateral force of 200 N into a
// beam of E = 2e8 N/m^2, A = 1e-6 m^2, L = 1 m, rho = 7800 kg/m^3. The error of the circle's y
// position and of the axial force at the middle of the beam against a 128-element, 12-segment
// solution decreases with elements and with segments.
//
// Assumptions (the paper gives no more than the above):
//  * Boundary conditions: both beam ends pinned (positions fixed, slopes free). Fig. 9 shows a
//    beam supported at both ends. With EI = 1.7e-5 N m^2 against a tension of ~110 N (bending
//    length sqrt(EI/N) ~ 0.4 mm) the beam acts as a string, and pinned ends leave it one: the
//    equilibrium has a closed-form string solution to check against. Clamped ends would have to
//    turn the slope from 0 to the spans' 62 degrees within that 0.4 mm boundary layer, which no
//    mesh of the study resolves (elements of 7.8 mm and longer), so the convergence would measure
//    the boundary layer rather than the contact.
//  * Square section b = h = 1 mm (A = 1e-6 m^2): EI = E A^2 / 12; the contact acts on the belt
//    surface h/2 below the centreline, the belt width b = 1 mm sets the per-area scaling.
//  * Contact stiffness 4e9 N/m^3 per area (the paper's belt-drive value), per segment
//    k_c = 4e9 b L_elem / n_cs, so refining does not change the physics. With the contact pressure
//    N / (R b) ~ 3e5 N/m^2 the penetration is ~1e-4 m against a circle travel of 0.54 m.
//  * The circle's spring is unstretched in the start position, where the circle touches the
//    straight beam's middle from below (1 micrometre penetration); the 200 N push upwards. The
//    circle's mass (1 kg) only enters the static solver's stabilizer.
//  * Static solve: solveStaticEquilibrium with its defaults except the settings in
//    quasiStaticSettings() below (the force is load-stepped like gravity).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace {
using namespace beltsim;

constexpr double kLength = 1.0;          // m
constexpr double kE = 2e8;               // N/m^2
constexpr double kArea = 1e-6;           // m^2
constexpr double kRho = 7800.0;          // kg/m^3
constexpr double kRadius = 0.35;         // m
constexpr double kSpring = 1.0;          // N/m
constexpr double kPush = 200.0;          // N
constexpr double kThickness = 1e-3;      // m (square section)
constexpr double kWidth = 1e-3;          // m
constexpr double kStiffnessPerArea = 4e9;  // N/m^3
constexpr double kCentreline = kRadius + 0.5 * kThickness;  // radius of the belt centreline, m
constexpr double kStartPenetration = 1e-6;                  // m
constexpr double kRestY = -kCentreline + kStartPenetration;  // circle centre at rest, m

// Static solver settings: the defaults (10 geometric load steps over 1e4, Newton tolerances 1e-6,
// 25 Newton and 5 PNS iterations per level, settle until no contact flag changes) except the
// stabilizer, which is switched off. The default mass-proportional stabilizer (1e5 (1 - L^2)
// times the circle's 1 kg = 1e5 N/m) holds the circle back against the stepped force in every
// load step but the last, where it vanishes; the one Newton solve of that step then has to move
// the circle by 0.5 m with the contact flags of the nearly straight beam, and it pushes the circle
// through the beam (measured: y_c = 199.6 m, the 200 N on the 1 N/m spring alone). Without the
// stabilizer the circle's 1 N/m spring regularizes the first load step (0.02 N moves the
// circle and the slack beam by ~2 cm), and each later step (x 2.8 in load, x 1.4 in the wrap
// angle) starts close to its solution.
StaticSettings quasiStaticSettings() {
  StaticSettings s;
  s.stabilizer = 0.0;
  return s;
}

struct Measurement {
  bool converged = false;
  Status status = Status::kOk;
  double residual = 0.0;       // final static residual, N
  int newton = 0;              // total Newton iterations
  double circleY = 0.0;        // circle centre y, m
  double midForce = 0.0;       // axial force at the middle node, N
  double contactForceY = 0.0;  // physical contact force on the circle, y, N
  double pinVertical = 0.0;    // sum of the pins' vertical reactions from the end sections, N
  double seconds = 0.0;        // wall time of the static solve
};

// One static solve with NE elements and `segments` contact segments per element. The drive is
// static (large), one per instantiation, set up afresh on every call.
template <int NE, int NCS>
Measurement solveCase(int segments) {
  using Drive = BeltDrive<NE, 1, NCS>;
  static Drive drive;
  static typename Drive::Vector q;
  const double elementLength = kLength / NE;

  BeltParameters belt;
  belt.closed = false;
  belt.startEnd = CableEnd::kPinned;
  belt.finishEnd = CableEnd::kPinned;
  belt.element.massPerLength = kRho * kArea;
  belt.element.EA = kE * kArea;
  belt.element.EI = kE * kArea * kArea / 12.0;
  belt.element.referenceAxialStrain = 0.0;
  belt.element.gravity = Eigen::Vector2d::Zero();
  belt.thickness = kThickness;
  belt.width = kWidth;

  PulleyParameters circle;
  circle.kind = PulleyKind::kFloating;
  circle.centre = Vector2(0.5 * kLength, kRestY);
  circle.radius = kRadius;
  circle.side = 1;  // below the beam, which runs in +x: the circle is right of the travel direction
  circle.inertia = 1.0;
  circle.mass = 1.0;
  circle.supportStiffness = kSpring;
  circle.force = Vector2(0.0, kPush);

  ContactParameters contact;
  contact.segmentCount = segments;
  contact.contactStiffness = kStiffnessPerArea * kWidth * elementLength / segments;
  FrictionParameters friction;  // mu = 0: frictionless
  contact.friction = friction;

  Measurement m;
  const ParameterError e = drive.setUp(belt, elementLength, &circle, contact);
  EXPECT_TRUE(e.ok()) << e.parameter;
  q.setZero();
  for (int k = 0; k <= NE; ++k) {
    q(Drive::nodeDof(k, 0)) = k * elementLength;
    q(Drive::nodeDof(k, 2)) = 1.0;
  }
  q(Drive::pulleyDof(0, 0)) = circle.centre(0);
  q(Drive::pulleyDof(0, 1)) = circle.centre(1);

  const auto start = std::chrono::steady_clock::now();
  const StaticResult r = solveStaticEquilibrium(drive, q, quasiStaticSettings(), friction);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.converged = r.converged;
  m.status = r.status;
  m.residual = r.residualNorm;
  m.newton = r.newtonIterations;
  m.circleY = q(Drive::pulleyDof(0, 1));

  const Eigen::Matrix<double, 8, 1> zero8 = Eigen::Matrix<double, 8, 1>::Zero();
  AncfCable2DSection<double> s;
  EXPECT_EQ(drive.element().section(drive.gatherElement(q, NE / 2), zero8, 0.0, s), Status::kOk);
  m.midForce = s.axialForce;

  const typename Drive::Vector zero = Drive::Vector::Zero();
  const CircleState cs = drive.circleState(q, zero, 0);
  for (int k = 0; k < NE; ++k) {
    PairForces f;
    EXPECT_EQ(drive.pair(k, 0).evaluateNewton(drive.gatherElement(q, k), zero8, elementLength, cs, f), Status::kOk);
    m.contactForceY -= f.circleForce(1);  // LHS -> physical force on the circle
  }
  // Pins: the beam pulls each support along its end tangent with the axial force (the bending
  // shear force is O(EI) and negligible); their vertical reactions carry the contact force.
  AncfCable2DSection<double> a, b;
  EXPECT_EQ(drive.element().section(drive.gatherElement(q, 0), zero8, 0.0, a), Status::kOk);
  EXPECT_EQ(drive.element().section(drive.gatherElement(q, NE - 1), zero8, elementLength, b), Status::kOk);
  m.pinVertical = a.axialForce * a.slope(1) / a.slope.norm() - b.axialForce * b.slope(1) / b.slope.norm();
  return m;
}

// Closed-form string solution (EI = 0, rigid contact): the beam runs from each pin along a
// tangent to the circle of radius R (centreline), wraps it over the arc 2 theta (theta = the
// spans' inclination), and carries the constant force N = EA (l / L - 1) (frictionless contact:
// no change of N over the arc). The circle's balance: 2 N sin(theta) = F - k (y - y_rest).
struct StringSolution {
  double circleY = 0.0, force = 0.0, theta = 0.0;
};

StringSolution stringSolution() {
  const double ea = kE * kArea;
  const auto evaluate = [&](double y, StringSolution& out) {
    const double cx = 0.5 * kLength;
    const double distance = std::sqrt(cx * cx + y * y);
    const double tangentLength = std::sqrt(distance * distance - kCentreline * kCentreline);
    const double theta = std::atan2(y, cx) + std::asin(kCentreline / distance);
    const double length = 2.0 * tangentLength + 2.0 * theta * kCentreline;
    out.circleY = y;
    out.force = ea * (length / kLength - 1.0);
    out.theta = theta;
    return 2.0 * out.force * std::sin(theta) - (kPush - kSpring * (y - kRestY));
  };
  double lo = kRestY + 1e-3, hi = 0.5;  // the balance is negative at lo, positive at hi
  StringSolution s;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (evaluate(mid, s) > 0.0) hi = mid; else lo = mid;
  }
  evaluate(0.5 * (lo + hi), s);
  return s;
}

// Every solve of the study, computed once: the reference and the grid elements x segments.
constexpr int kElementCounts[] = {8, 16, 32, 64};
constexpr int kSegmentCounts[] = {2, 4, 8, 12};
constexpr int kRows = 4, kColumns = 4;

struct Study {
  Measurement reference;  // 128 elements x 12 segments
  Measurement grid[kRows][kColumns];
};

template <int NE>
void solveRow(Study& study, int row) {
  for (int c = 0; c < kColumns; ++c) study.grid[row][c] = solveCase<NE, 12>(kSegmentCounts[c]);
}

const Study& study() {
  static Study s;
  static bool done = false;
  if (!done) {
    s.reference = solveCase<128, 12>(12);
    solveRow<8>(s, 0);
    solveRow<16>(s, 1);
    solveRow<32>(s, 2);
    solveRow<64>(s, 3);
    done = true;
    double total = s.reference.seconds;
    for (const auto& row : s.grid)
      for (const Measurement& m : row) total += m.seconds;
    std::printf("reference 128 x 12: y_c = %.9f m, N_mid = %.6f N, residual %.1e N, %d Newton iterations, %.3f s\n",
                s.reference.circleY, s.reference.midForce, s.reference.residual, s.reference.newton, s.reference.seconds);
    std::printf("error of y_c against the reference, m (rows: elements, columns: segments per element)\n      ");
    for (int c = 0; c < kColumns; ++c) std::printf("%12d", kSegmentCounts[c]);
    for (int r = 0; r < kRows; ++r) {
      std::printf("\n%6d", kElementCounts[r]);
      for (int c = 0; c < kColumns; ++c) std::printf("%12.3e", std::fabs(s.grid[r][c].circleY - s.reference.circleY));
    }
    std::printf("\nerror of N at the middle against the reference, N\n      ");
    for (int c = 0; c < kColumns; ++c) std::printf("%12d", kSegmentCounts[c]);
    for (int r = 0; r < kRows; ++r) {
      std::printf("\n%6d", kElementCounts[r]);
      for (int c = 0; c < kColumns; ++c) std::printf("%12.3e", std::fabs(s.grid[r][c].midForce - s.reference.midForce));
    }
    std::printf("\nstatic solve wall time, s\n      ");
    for (int c = 0; c < kColumns; ++c) std::printf("%12d", kSegmentCounts[c]);
    for (int r = 0; r < kRows; ++r) {
      std::printf("\n%6d", kElementCounts[r]);
      for (int c = 0; c < kColumns; ++c) std::printf("%12.4f", s.grid[r][c].seconds);
    }
    std::printf("\nall %d static solves: %.3f s\n", 1 + kRows * kColumns, total);
  }
  return s;
}

int column(int segments) {
  for (int c = 0; c < kColumns; ++c)
    if (kSegmentCounts[c] == segments) return c;
  return -1;
}
int row(int elements) {
  for (int r = 0; r < kRows; ++r)
    if (kElementCounts[r] == elements) return r;
  return -1;
}

double errorY(const Measurement& m) { return std::fabs(m.circleY - study().reference.circleY); }
double errorN(const Measurement& m) { return std::fabs(m.midForce - study().reference.midForce); }

// (a) Every static solve ends in equilibrium: no fault, the residual with the final contact flags
// below 1e-6 N, and (StaticResult::converged) every Newton solve of every load step within its
// bound. Exception to the last: at 8 elements x 2 segments one intermediate Newton solve (full
// load, second PNS iteration) cycles between two states (residual 23.0 <-> 80.7 N) because the
// closest point of a segment at the edge of the contact arc flips between its interior
// (rho = 0.947) and its end (rho clamped to 1), where the gap is only once differentiable; the
// Jacobian is exact on both sides (checked against central differences). The next PNS iteration,
// with updated contact flags, converges, and the final state is an equilibrium (residual 1e-9 N).
TEST(QuasiStaticCircle, EverySolveReachesEquilibrium) {
  const Study& s = study();
  EXPECT_EQ(s.reference.status, Status::kOk);
  EXPECT_TRUE(s.reference.converged);
  EXPECT_LT(s.reference.residual, 1e-6);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kColumns; ++c) {
      const Measurement& m = s.grid[r][c];
      EXPECT_EQ(m.status, Status::kOk) << kElementCounts[r] << " x " << kSegmentCounts[c];
      EXPECT_LT(m.residual, 1e-6) << kElementCounts[r] << " x " << kSegmentCounts[c];
      // The circle rests on the beam (not pushed through it): within 1 cm of the reference.
      EXPECT_NEAR(m.circleY, s.reference.circleY, 1e-2) << kElementCounts[r] << " x " << kSegmentCounts[c];
      if (kElementCounts[r] == 8 && kSegmentCounts[c] == 2) continue;  // see above
      EXPECT_TRUE(m.converged) << kElementCounts[r] << " x " << kSegmentCounts[c];
    }
}

// (b) Convergence in elements at a fixed segment count: both errors fall monotonically, by about
// 4 per doubling (second order), from 8 to 64 elements with 4 segments per element.
TEST(QuasiStaticCircle, ErrorsDecreaseWithElements) {
  const Study& s = study();
  for (int segments : {4, 8}) {
    const int c = column(segments);
    for (int r = 1; r < kRows; ++r) {
      EXPECT_LT(errorY(s.grid[r][c]), errorY(s.grid[r - 1][c]))
          << kElementCounts[r] << " vs " << kElementCounts[r - 1] << " elements, " << segments << " segments";
      EXPECT_LT(errorN(s.grid[r][c]), errorN(s.grid[r - 1][c]))
          << kElementCounts[r] << " vs " << kElementCounts[r - 1] << " elements, " << segments << " segments";
    }
  }
  // Rate: from 16 to 64 elements (4 segments) the errors drop by more than 8 (h^2 would give 16).
  const int c = column(4);
  EXPECT_GT(errorY(s.grid[row(16)][c]) / errorY(s.grid[row(64)][c]), 8.0);
  EXPECT_GT(errorN(s.grid[row(16)][c]) / errorN(s.grid[row(64)][c]), 8.0);
}

// (b) Convergence in segments at a fixed element count (16): the circle's position error falls
// monotonically with 2, 4, 8, 12 segments. The axial force converges in segments too, but towards
// the 16-element value, which differs from the reference by the element discretization error
// (+0.38 N at 16 elements); the segment error has the opposite sign (-0.56 N at 2 segments), so
// the error against the reference is not monotone in the segments (measured 0.19, 0.25, 0.36,
// 0.38 N). Asserted instead: the segment part |N(16, s) - N(16, 12)| falls monotonically
// (measured 0.56, 0.13, 0.016 N for 2, 4, 8 segments), and at 8 segments it is small against the
// element error.
TEST(QuasiStaticCircle, ErrorsDecreaseWithSegments) {
  const Study& s = study();
  const int r = row(16);
  for (int c = 1; c < kColumns; ++c)
    EXPECT_LT(errorY(s.grid[r][c]), errorY(s.grid[r][c - 1])) << kSegmentCounts[c] << " segments, 16 elements";
  const Measurement& finest = s.grid[r][kColumns - 1];
  for (int c = 1; c < kColumns - 1; ++c) {
    const double part = std::fabs(s.grid[r][c].midForce - finest.midForce);
    const double coarser = std::fabs(s.grid[r][c - 1].midForce - finest.midForce);
    EXPECT_LT(part, coarser) << kSegmentCounts[c] << " segments, 16 elements";
  }
  // The element error then dominates: at 12 segments the 16-element error is that of 16 elements.
  EXPECT_GT(errorN(finest), 5.0 * std::fabs(s.grid[r][kColumns - 2].midForce - finest.midForce));
  // The same picture at 64 elements: y monotone in the segments.
  const int r64 = row(64);
  for (int c = 1; c < kColumns; ++c)
    EXPECT_LT(errorY(s.grid[r64][c]), errorY(s.grid[r64][c - 1])) << kSegmentCounts[c] << " segments, 64 elements";
}

// (c) Physics of the reference solution.
TEST(QuasiStaticCircle, ReferenceBalancesForcesAndMatchesTheStringSolution) {
  const Measurement& ref = study().reference;
  // Circle: push = spring + contact (the contact force on the circle points down).
  const double spring = kSpring * (ref.circleY - kRestY);
  std::printf("circle balance: push %.6f N = spring %.6f N + contact %.6f N; pins' vertical reactions %.6f N\n",
              kPush, spring, -ref.contactForceY, ref.pinVertical);
  EXPECT_NEAR(kPush, spring - ref.contactForceY, 1e-6 * kPush);
  // Beam: the pins carry the contact force (beam weight not applied; shear force O(EI) ~ 1e-4 N).
  EXPECT_NEAR(ref.pinVertical, -ref.contactForceY, 1e-3);
  // Closed-form string solution (EI = 0, rigid contact). The model's circle rises higher by
  // the contact penetration: pressure per current length N / R ~ 323 N/m on a stiffness of
  // 4e9 b / (1 + eps) = 2.6e6 N/m^2 per current length gives ~1.3e-4 m (measured 1.7e-4 m).
  const StringSolution str = stringSolution();
  std::printf("string solution: y_c = %.6f m, N = %.4f N, theta = %.4f rad; model (128 x 12): y_c = %.6f m, N = %.4f N\n",
              str.circleY, str.force, str.theta, ref.circleY, ref.midForce);
  EXPECT_NEAR(ref.circleY, str.circleY, 4e-4);
  EXPECT_NEAR(ref.midForce, str.force, 2e-3 * str.force);
  EXPECT_GT(ref.circleY, str.circleY);  // penetration lets the circle rise a little further
}

}  // namespace
