// Segment points of one ANCF cable element (docs/model_contact.md §3; paper [P] Sect. 2.3): the element is cut into
// n_cs straight segments by n_cs + 1 points at equal spacing of the element parameter, each moved
// by `offset` h_o along the element normal (h_o < 0: to the right of the element direction, the
// belt's inner surface for a belt running clockwise around its pulleys).
#pragma once
#include <cmath>

#include <Eigen/Core>

#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

using Vector2 = Eigen::Matrix<double, 2, 1>;
using Vector8 = Eigen::Matrix<double, 8, 1>;

inline double cross2(const Vector2& a, const Vector2& b) { return a(0) * b(1) - a(1) * b(0); }
inline Vector2 leftNormal(const Vector2& a) { return Vector2(-a(1), a(0)); }

template <int MaxSegments>
struct SegmentPoints {
  static constexpr int kMaxPoints = MaxSegments + 1;
  int segmentCount = 0;
  Vector2 position[kMaxPoints];  // P_k, m
  Vector2 velocity[kMaxPoints];  // V_k = dP_k/dt, m/s
  // Marker data of each point, kept for the force distribution and the Jacobian (no recomputation).
  Vector2 slope[kMaxPoints];       // r'(x_k)
  Vector2 tangent[kMaxPoints];     // t_hat = r'/|r'|
  double slopeSquared[kMaxPoints];  // |r'|^2
};

// Shape functions at the n_cs + 1 segment points x_k = L k / n_cs. They depend only on the element
// length and the segment count, so a drive builds the table once (the values are bit-identical to
// HermiteShape::at evaluated on the fly).
template <int MaxSegments>
struct SegmentShapeTable {
  static constexpr int kMaxPoints = MaxSegments + 1;
  int segmentCount = 0;
  double length = 0.0;
  double x[kMaxPoints] = {};
  HermiteShape<double> shape[kMaxPoints];

  void build(double elementLength, int count) {
    length = elementLength;
    segmentCount = count;
    for (int k = 0; k < kMaxPoints; ++k) {
      if (k > count) break;
      x[k] = elementLength * k / count;
      shape[k] = HermiteShape<double>::at(x[k], elementLength);
    }
  }
  bool matches(double elementLength, int count) const { return length == elementLength && segmentCount == count; }
};

// Geometry of one point of the marker: P = r + h_o n_hat, V = r_dot - h_o omega_s t_hat.
struct MarkerPoint {
  double x;  // local element coordinate, m
  HermiteShape<double> shape;
  Vector2 slope;      // r'
  Vector2 tangent;    // t_hat = r'/|r'|
  double slopeSquared;
};

inline Status markerPoint(const Vector8& q, double length, double x, MarkerPoint& out) {
  out.x = x;
  out.shape = HermiteShape<double>::at(x, length);
  out.slope = HermiteShape<double>::interpolate(out.shape.ds, q);
  out.slopeSquared = out.slope.squaredNorm();
  if (!(out.slopeSquared > 1e-24)) return Status::kDegenerateState;  // |r'| = 0 or NaN
  out.tangent = out.slope / std::sqrt(out.slopeSquared);
  return Status::kOk;
}

// Points and velocities of all segment endpoints, with the shape functions from a table built for
// this length and segment count.
template <int MaxSegments>
Status computeSegmentPoints(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                            double offset, SegmentPoints<MaxSegments>& out) {
  const int segmentCount = table.segmentCount;
  out.segmentCount = segmentCount;
  for (int k = 0; k < SegmentPoints<MaxSegments>::kMaxPoints; ++k) {
    if (k > segmentCount) break;
    const HermiteShape<double>& shape = table.shape[k];
    const Vector2 slope = HermiteShape<double>::interpolate(shape.ds, q);
    const double slopeSquared = slope.squaredNorm();
    if (!(slopeSquared > 1e-24)) return Status::kDegenerateState;  // |r'| = 0 or NaN
    const Vector2 tangent = slope / std::sqrt(slopeSquared);
    out.slope[k] = slope;
    out.tangent[k] = tangent;
    out.slopeSquared[k] = slopeSquared;
    const Vector2 r = HermiteShape<double>::interpolate(shape.s, q);
    const Vector2 rDot = HermiteShape<double>::interpolate(shape.s, qDot);
    out.position[k] = r + offset * leftNormal(tangent);
    if (offset != 0.0) {
      const Vector2 slopeDot = HermiteShape<double>::interpolate(shape.ds, qDot);
      const double omega = cross2(slope, slopeDot) / slopeSquared;  // rotation rate of the section
      out.velocity[k] = rDot - offset * omega * tangent;
    } else {
      out.velocity[k] = rDot;
    }
  }
  return Status::kOk;
}

// Same, evaluating the shape functions on the fly.
template <int MaxSegments>
Status computeSegmentPoints(const Vector8& q, const Vector8& qDot, double length, int segmentCount,
                            double offset, SegmentPoints<MaxSegments>& out) {
  SegmentShapeTable<MaxSegments> table;
  table.build(length, segmentCount);
  return computeSegmentPoints(q, qDot, table, offset, out);
}

// Adds J_k^T F of a point force F at segment point k from the marker data of computeSegmentPoints
// (identical to addPointForce below, without recomputing the marker).
inline void addPointForce(const HermiteShape<double>& shape, const Vector2& slope, const Vector2& tangent,
                          double slopeSquared, double offset, const Vector2& force, Vector8& elementForce) {
  const double tangentialPart = offset != 0.0 ? offset * tangent.dot(force) / slopeSquared : 0.0;
  const Vector2 slopePerp = leftNormal(slope);
  for (int j = 0; j < 4; ++j) {
    elementForce(2 * j) += shape.s(j) * force(0) - tangentialPart * slopePerp(0) * shape.ds(j);
    elementForce(2 * j + 1) += shape.s(j) * force(1) - tangentialPart * slopePerp(1) * shape.ds(j);
  }
}

// Adds J_k^T F (docs/model_contact.md §3) of a point force F (LHS) at segment point k to the element vector:
// J_k = S(x_k) - h_o / |r'|^2 t_hat (r'^perp^T S'(x_k)).
inline void addPointForce(const Vector8& q, double length, double x, double offset, const Vector2& force,
                          Vector8& elementForce) {
  MarkerPoint m;
  if (markerPoint(q, length, x, m) != Status::kOk) return;  // caller has flagged the state already
  const double tangentialPart = offset != 0.0 ? offset * m.tangent.dot(force) / m.slopeSquared : 0.0;
  const Vector2 slopePerp = leftNormal(m.slope);
  for (int j = 0; j < 4; ++j) {
    elementForce(2 * j) += m.shape.s(j) * force(0) - tangentialPart * slopePerp(0) * m.shape.ds(j);
    elementForce(2 * j + 1) += m.shape.s(j) * force(1) - tangentialPart * slopePerp(1) * m.shape.ds(j);
  }
}

}  // namespace beltsim
