// The measured quantities of belt_outputs.hpp (span forces and speeds, samples along the belt) on
// the eulerian mesh (eulerian_belt_drive.hpp, docs/model_element.md §2.11). Its nodes stay at their stations on
// the path (node 0 where span 0 leaves circle 0), so a place on the path is a place on the mesh:
// a span is measured at fixed mesh points, and a sample's arc coordinate is its station.
#pragma once
#include <cmath>

#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/eulerian_belt_drive.hpp"

namespace beltsim {

// The element holding station s (m from node 0 along the mesh, wrapped into the belt) and the
// mesh point x in it.
template <int NE, int NP, int NCS>
int eulerianElementAt(const EulerianBeltDrive<NE, NP, NCS>& drive, double s, double& x) {
  double total = 0.0;
  for (int e = 0; e < NE; ++e) total += drive.mesh().elementLength(e);
  s -= std::floor(s / total) * total;
  int e = 0;
  double start = 0.0;
  while (e + 1 < NE && start + drive.mesh().elementLength(e) <= s) start += drive.mesh().elementLength(e++);
  x = s - start;
  return e;
}

// Span k's mean axial force and speed over its middle half (as measureSpan), from five points at
// 0.25, 0.375, ..., 0.75 of the span as the path was drawn: the mesh does not move along it.
template <int NE, int NP, int NCS, int MaxPulleys>
SpanMeasure measureSpan(const EulerianBeltDrive<NE, NP, NCS>& drive, const typename EulerianBeltDrive<NE, NP, NCS>::Vector& q,
                        const typename EulerianBeltDrive<NE, NP, NCS>::Vector& v, const BeltPath<MaxPulleys>& path,
                        int span) {
  SpanMeasure m;
  if (!(span >= 0 && span < path.pulleyCount)) return m;
  double start = 0.0;  // where span k leaves circle k, from node 0
  for (int j = 0; j < span; ++j) {
    const PathCircle& next = path.circle[(j + 1) % path.pulleyCount];
    start += path.spanLength[j] + next.radius * std::fabs(path.arcSweep[(j + 1) % path.pulleyCount]);
  }
  constexpr int kPoints = 5;
  SpanSums sums;
  for (int i = 0; i < kPoints; ++i) {
    double x = 0.0;
    const int e = eulerianElementAt(drive, start + (0.25 + 0.125 * i) * path.spanLength[span], x);
    typename EulerianBeltDrive<NE, NP, NCS>::Element::Section s;
    if (drive.mesh().materialSection(q, v, e, x, s) == Status::kOk) sums.add(s);
  }
  return sums.mean();
}

// One sample at the middle of contact segment `segment` of element e (as sampleBelt): the axial
// force and velocity of the material there; materialArc is the sample's station (m from node 0).
template <int NE, int NP, int NCS>
Status sampleBelt(const EulerianBeltDrive<NE, NP, NCS>& drive, const typename EulerianBeltDrive<NE, NP, NCS>::Vector& q,
                  const typename EulerianBeltDrive<NE, NP, NCS>::Vector& v, int e, int segment, BeltSample& out) {
  const double length = drive.mesh().elementLength(e);
  const int segments = drive.pair(e, 0).parameters().segmentCount;
  const double x = (segment + 0.5) * length / segments;
  typename EulerianBeltDrive<NE, NP, NCS>::Element::Section s;
  const Status st = drive.mesh().materialSection(q, v, e, x, s);
  if (st != Status::kOk) return st;
  out = BeltSample{};
  out.materialArc = drive.mesh().station(e) + x;
  out.axialForce = s.axialForce;
  const double slopeNorm = s.slope.norm();
  out.axialVelocity = slopeNorm > 0.0 ? s.velocity.dot(s.slope) / slopeNorm : 0.0;
  out.position = s.position;
  const auto qe = drive.mesh().gatherElement(q, e);
  const auto rates = drive.mesh().kinematics(q, v, e).rates;
  for (int p = 0; p < drive.pulleyCount(); ++p) {
    if (drive.paired(e, p))
      addContactToSample(drive.pair(e, p), qe, rates, length, drive.circleState(q, v, p), p, segment, out);
  }
  return Status::kOk;
}

// A sample's station is its place on the path from node 0, where span 0 leaves circle 0: the
// spatial arc coordinate s_l of docs/model_start_and_benchmark.md §9.5 without an offset.
template <int NE, int NP, int NCS, int MaxPulleys>
double spatialArcOffset(const EulerianBeltDrive<NE, NP, NCS>&, const typename EulerianBeltDrive<NE, NP, NCS>::Vector&,
                        const BeltPath<MaxPulleys>&) {
  return 0.0;
}

// The reference length of belt that has passed node 0 since the start, m, positive in the path's
// direction (node 0's material coordinate falls as the material moves on).
template <int NE, int NP, int NCS>
double materialTravelled(const typename EulerianBeltDrive<NE, NP, NCS>::Vector& q,
                         const typename EulerianBeltDrive<NE, NP, NCS>::Vector& start) {
  using Drive = EulerianBeltDrive<NE, NP, NCS>;
  return start(Drive::materialDof(0)) - q(Drive::materialDof(0));
}

}  // namespace beltsim
