// Initial geometry of a closed belt wrapped around circles (docs/model_start_and_benchmark.md §8.1, after the reference's
// CreateReevingCurve): tangent spans between consecutive circles and arcs on them, traversed in
// the given order, then nodes placed at equal arc length starting at the first departure point.
// Circles with side +1 lie to the right of the travel direction (the belt wraps them clockwise,
// as all pulleys of the paper's drive); side -1 for a back-side idler (wrapped counter-clockwise).
#pragma once
#include <cmath>

#include "beltsim/core/detmath.hpp"
#include "beltsim/element/segment_marker.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

struct PathCircle {
  Vector2 centre = Vector2::Zero();
  double radius = 0.0;  // radius of the belt centreline on this circle (r + h_b / 2), m
  int side = 1;         // +1: circle right of the belt (clockwise wrap), -1: left
};

// One closed belt path: span k runs from circle k to circle k+1 (mod count), then the arc on
// circle k+1 follows.
template <int MaxPulleys>
struct BeltPath {
  int pulleyCount = 0;
  PathCircle circle[MaxPulleys];
  Vector2 departure[MaxPulleys];   // start of span k, on circle k
  Vector2 arrival[MaxPulleys];     // end of span k, on circle k+1
  double spanLength[MaxPulleys] = {};
  double arcStartAngle[MaxPulleys] = {};  // angle of the radius vector at the arrival on circle k
  double arcSweep[MaxPulleys] = {};       // signed sweep on circle k (negative: clockwise)
  double totalLength = 0.0;

  // Position and unit tangent at arc length s in [0, totalLength).
  void pointAt(double s, Vector2& position, Vector2& tangent) const {
    for (int k = 0; k < MaxPulleys; ++k) {
      if (k >= pulleyCount) break;
      if (s < spanLength[k]) {
        tangent = (arrival[k] - departure[k]) / spanLength[k];
        position = departure[k] + s * tangent;
        return;
      }
      s -= spanLength[k];
      const int next = (k + 1) % pulleyCount;
      const double arcLength = circle[next].radius * std::fabs(arcSweep[next]);
      if (s < arcLength || k == pulleyCount - 1) {
        const double direction = arcSweep[next] < 0 ? -1.0 : 1.0;
        const double angle = arcStartAngle[next] + direction * s / circle[next].radius;
        const Vector2 radial(detmath::cos(angle), detmath::sin(angle));
        position = circle[next].centre + circle[next].radius * radial;
        tangent = direction * leftNormal(radial);
        return;
      }
      s -= arcLength;
    }
  }
};

// Builds the path. Fails (naming the parameter) if circles are too few or too many, a radius is
// not positive, two consecutive centres coincide, or a span cannot be tangent to both circles.
template <int MaxPulleys>
ParameterError buildBeltPath(const PathCircle* circles, int count, BeltPath<MaxPulleys>& path) {
  if (count < 2 || count > MaxPulleys) return ParameterError::invalid("pulleyCount");
  path.pulleyCount = count;
  for (int k = 0; k < MaxPulleys; ++k) {
    if (k >= count) break;
    if (!(circles[k].radius > 0.0 && isFinite(circles[k].radius))) return ParameterError::invalid("radius");
    if (circles[k].side != 1 && circles[k].side != -1) return ParameterError::invalid("side");
    path.circle[k] = circles[k];
  }
  for (int k = 0; k < MaxPulleys; ++k) {
    if (k >= count) break;
    const PathCircle& a = path.circle[k];
    const PathCircle& b = path.circle[(k + 1) % count];
    const Vector2 between = b.centre - a.centre;
    const double distance = between.norm();
    if (!(distance > 0.0)) return ParameterError::invalid("centre");
    const Vector2 u = between / distance;
    const Vector2 nu = leftNormal(u);
    const double sine = (b.side * b.radius - a.side * a.radius) / distance;
    if (!(sine > -1.0 && sine < 1.0)) return ParameterError::invalid("radius");
    const double cosine = std::sqrt(1.0 - sine * sine);
    const Vector2 normal = cosine * nu - sine * u;  // unit normal of the span, towards its left
    path.departure[k] = a.centre + a.side * a.radius * normal;
    path.arrival[k] = b.centre + b.side * b.radius * normal;
    path.spanLength[k] = (path.arrival[k] - path.departure[k]).norm();
  }
  path.totalLength = 0.0;
  for (int k = 0; k < MaxPulleys; ++k) {
    if (k >= count) break;
    // Arc on circle k: from the arrival of span k-1 to the departure of span k.
    const PathCircle& c = path.circle[k];
    const Vector2 from = path.arrival[(k + count - 1) % count] - c.centre;
    const Vector2 to = path.departure[k] - c.centre;
    const double angleFrom = detmath::atan2(from(1), from(0));
    double sweep = detmath::atan2(to(1), to(0)) - angleFrom;
    const double turn = 2.0 * detmath::kPi;
    // A difference of two atan2 values lies in (-2 pi, 2 pi): one correction suffices.
    if (c.side == 1 && sweep > 0.0) sweep -= turn;   // clockwise: sweep in (-2 pi, 0]
    if (c.side == -1 && sweep < 0.0) sweep += turn;  // counter-clockwise: sweep in [0, 2 pi)
    path.arcStartAngle[k] = angleFrom;
    path.arcSweep[k] = sweep;
    path.totalLength += path.spanLength[k] + c.radius * std::fabs(sweep);
  }
  return ParameterError::success();
}

// Node coordinates [x, y, x', y'] of a closed belt of `elements` equal elements; slopes are
// unit tangents, so the belt starts at zero strain along its reference length. The first node
// sits `start` metres along the path from its beginning (0 <= start < one element's length).
template <int MaxPulleys, typename NodeArray>
void placeBeltNodes(const BeltPath<MaxPulleys>& path, int elements, NodeArray& nodes, double start = 0.0) {
  const double length = path.totalLength / elements;
  for (int k = 0; k < elements; ++k) {
    Vector2 p = Vector2::Zero(), t = Vector2::Zero();
    double s = start + length * k;
    if (s >= path.totalLength) s -= path.totalLength;
    path.pointAt(s, p, t);
    nodes(4 * k) = p(0);
    nodes(4 * k + 1) = p(1);
    nodes(4 * k + 2) = t(0);
    nodes(4 * k + 3) = t(1);
  }
}

}  // namespace beltsim
