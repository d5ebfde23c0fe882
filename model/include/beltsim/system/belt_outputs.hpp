// Measured quantities of a belt drive (docs/model_start_and_benchmark.md §9.5): span forces and speeds as
// means over the middle half of each free span, and samples of the belt along its arc length
// (axial force, axial velocity, contact stresses, stick/slip state) for profiles.
#pragma once
#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"

namespace beltsim {

struct SpanMeasure {
  double force = 0.0;  // mean axial force N over the middle half of the span, N
  double speed = 0.0;  // mean belt speed along the span (magnitude of t . v), m/s
  int samples = 0;     // element midpoints that fell into the middle half
};

// The sums of a span's samples: each section's axial force and its speed along the belt.
struct SpanSums {
  double force = 0.0, speed = 0.0;
  int samples = 0;
  void add(const AncfCable2DSection<double>& s) {
    const double slopeNorm = s.slope.norm();
    force += s.axialForce;
    speed += slopeNorm > 0.0 ? s.velocity.dot(s.slope) / slopeNorm : 0.0;
    ++samples;
  }
  SpanMeasure mean() const {
    SpanMeasure m;
    m.samples = samples;
    if (samples > 0) {
      m.force = force / samples;
      const double meanSpeed = speed / samples;
      m.speed = meanSpeed < 0 ? -meanSpeed : meanSpeed;
    }
    return m;
  }
};

// Span k of `path` runs from its departure point on circle k to its arrival on circle k+1; its
// line is the two circles' common tangent (as in buildBeltPath) at their current centres in q, so
// that it follows a tensioner or floating pulley (against the drawn line, the short span between
// the example's tensioner and crankshaft had no element left in it: 0 N). An element counts for
// the span if its midpoint projects into the middle half of the span and lies within 2 % of the
// span length (plus 1 mm) of the span line.
template <int NE, int NP, int NCS, int MaxPulleys>
SpanMeasure measureSpan(const BeltDrive<NE, NP, NCS>& drive, const typename BeltDrive<NE, NP, NCS>::Vector& q,
                        const typename BeltDrive<NE, NP, NCS>::Vector& v, const BeltPath<MaxPulleys>& path, int span) {
  using Drive = BeltDrive<NE, NP, NCS>;
  SpanMeasure m;
  if (!(span >= 0 && span < path.pulleyCount)) return m;
  const int next = (span + 1) % path.pulleyCount;
  const PathCircle& a = path.circle[span];
  const PathCircle& b = path.circle[next];
  const Vector2 centreA(q(Drive::pulleyDof(span, 0)), q(Drive::pulleyDof(span, 1)));
  const Vector2 centreB(q(Drive::pulleyDof(next, 0)), q(Drive::pulleyDof(next, 1)));
  const Vector2 between = centreB - centreA;
  const double distance = between.norm();
  if (!(distance > 0.0)) return m;
  const double sine = (b.side * b.radius - a.side * a.radius) / distance;
  if (!(sine > -1.0 && sine < 1.0)) return m;
  const Vector2 along = between / distance;
  const Vector2 normal = std::sqrt(1.0 - sine * sine) * leftNormal(along) - sine * along;
  const Vector2 start = centreA + a.side * a.radius * normal;
  const Vector2 arrival = centreB + b.side * b.radius * normal;
  const double length = (arrival - start).norm();
  if (!(length > 0.0)) return m;
  const Vector2 u = (arrival - start) / length;
  const double lateralLimit = 0.02 * length + 1e-3;
  // The midpoint's position decides whether an element counts; only those that count need the
  // section (axial force, slope): a few elements of each span instead of all of them, every step.
  const double midpoint = 0.5 * drive.belt().element.length;
  const HermiteShape<double> shape = HermiteShape<double>::at(midpoint, drive.belt().element.length);
  SpanSums sums;
  for (int e = 0; e < NE; ++e) {
    const Vector8 qe = drive.gatherElement(q, e);
    const Vector2 rel = HermiteShape<double>::interpolate(shape.s, qe) - start;  // as section().position
    const double along = rel.dot(u) / length;
    const double lateral = cross2(u, rel);
    if (!(along >= 0.25 && along <= 0.75 && lateral <= lateralLimit && lateral >= -lateralLimit)) continue;
    AncfCable2DSection<double> s;
    if (drive.element().section(qe, drive.gatherElement(v, e), midpoint, s) != Status::kOk) continue;
    sums.add(s);
  }
  return sums.mean();
}

// One sample of the belt profile, at the midpoint of contact segment `segment` of element e.
struct BeltSample {
  double materialArc = 0.0;     // arc length along the belt from node 0, m (reference length)
  double axialForce = 0.0;      // N
  double axialVelocity = 0.0;   // t . v, m/s (negative: material runs against the element direction)
  double normalStress = 0.0;    // contact normal stress summed over circles, N/m^2 (< 0 compression)
  double tangentialStress = 0.0;  // N/m^2
  int stickSlip = -2;           // state of the segment in contact (-2: no contact)
  int circle = -1;              // the circle it is in contact with (-1: none)
  Vector2 position = Vector2::Zero();
};

// Adds circle p's contact at segment `segment` to a sample: the pair's stresses, and its state and
// the circle if the segment touches it (element coordinates q, the material's rates).
template <int NCS>
void addContactToSample(const ContactPair<NCS>& pair, const Vector8& q, const Vector8& rates, double length,
                        const CircleState& circle, int p, int segment, BeltSample& out) {
  SegmentOutput seg[NCS];
  if (pair.outputs(q, rates, length, circle, seg) != Status::kOk) return;
  out.normalStress += seg[segment].normalStress;
  out.tangentialStress += seg[segment].tangentialStress;
  if (pair.history(segment).gap <= 0.0) {
    out.stickSlip = static_cast<int>(seg[segment].state);
    out.circle = p;
  }
}

template <int NE, int NP, int NCS>
Status sampleBelt(const BeltDrive<NE, NP, NCS>& drive, const typename BeltDrive<NE, NP, NCS>::Vector& q,
                  const typename BeltDrive<NE, NP, NCS>::Vector& v, int e, int segment, BeltSample& out) {
  const double length = drive.belt().element.length;
  const int segments = drive.contact().segmentCount;  // also without a circle in use
  const double x = (segment + 0.5) * length / segments;
  AncfCable2DSection<double> s;
  const Status st = drive.element().section(drive.gatherElement(q, e), drive.gatherElement(v, e), x, s);
  if (st != Status::kOk) return st;
  out = BeltSample{};
  out.materialArc = e * length + x;
  out.axialForce = s.axialForce;
  const double slopeNorm = s.slope.norm();
  out.axialVelocity = slopeNorm > 0.0 ? s.velocity.dot(s.slope) / slopeNorm : 0.0;
  out.position = s.position;
  for (int p = 0; p < NP; ++p) {
    if (p >= drive.pulleyCount()) break;
    addContactToSample(drive.pair(e, p), drive.gatherElement(q, e), drive.gatherElement(v, e), length,
                       drive.circleState(q, v, p), p, segment, out);
  }
  return Status::kOk;
}

// Offset between material arc length and the spatial arc coordinate s_l of docs/model_start_and_benchmark.md §9.5: s_l = 0 at
// the departure point of span 0 (for the paper's drive: where the belt leaves P1 at the top).
// Uses the node closest to that point; s_l = materialArc - offset, wrapped into [0, belt length).
template <int NE, int NP, int NCS, int MaxPulleys>
double spatialArcOffset(const BeltDrive<NE, NP, NCS>& drive, const typename BeltDrive<NE, NP, NCS>::Vector& q,
                        const BeltPath<MaxPulleys>& path) {
  const Vector2 start = path.departure[0];
  const Vector2 u = (path.arrival[0] - start).normalized();
  int best = 0;
  double bestDistance = 1e300;
  for (int k = 0; k < NE; ++k) {
    const Vector2 p(q(4 * k), q(4 * k + 1));
    const double d = (p - start).squaredNorm();
    if (d < bestDistance) {
      bestDistance = d;
      best = k;
    }
  }
  const Vector2 p(q(4 * best), q(4 * best + 1));
  return best * drive.belt().element.length - (p - start).dot(u);
}

}  // namespace beltsim
