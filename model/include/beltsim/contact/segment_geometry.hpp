// One contact segment against a circle (docs/model_contact.md §4.2-4.5): the closest point, the gap
// (chord or arc), the contact frame, the relative kinematics with the pulley's surface speed, the
// sticking coordinate and the normal force law. Free functions of the segment's points; the pair
// (circle_cable_contact.hpp) holds the history that decides what they mean.
#pragma once
#include <cmath>
#include <cstdint>

#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/contact/contact_parameters.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/element/segment_marker.hpp"

namespace beltsim {

// Closest point of a segment to the circle centre, gap and contact frame (docs/model_contact.md §4.2).
struct SegmentGeometry {
  double rho = 0.0;       // closest-point parameter on the segment, clamped to [0, 1]
  double distance = 0.0;  // delta, m
  double gap = 0.0;       // g = delta - surfaceRadius + elementSag, m; <= 0 is penetration
  double surfaceRadius = 0.0;  // what delta is compared with, m: r (chord) or sqrt(r^2 - w(rho) |v_s|^2) (arc)
  // w(rho) = 4 rho^2 (1 - rho)^2 of the arc gap (> 0 only for 0 < rho < 1); 0: surfaceRadius does
  // not move with the segment (chord gap, rho at an end, or the radius held at its floor).
  double arcWeight = 0.0;
  double arcWeightSlope = 0.0; // dw/drho = 8 rho (1 - rho) (1 - 2 rho)
  // The element's own sag at the closest point, e_m 16 xi^2 (1 - xi)^2 with xi = (i + rho) / n_cs
  // (arc gap; m), and its derivative by rho (0 where rho is clamped to an end).
  double elementSag = 0.0;
  double elementSagSlope = 0.0;
  Vector2 normal = Vector2::Zero();   // n, from the circle centre to the segment
  Vector2 tangent = Vector2::Zero();  // t = n^perp, counter-clockwise around the circle
  Vector2 direction = Vector2::Zero();  // v_s = P_{i+1} - P_i
  bool degenerate = false;  // centre on the segment (delta = 0): normal chosen, state flagged
};

// |d| below this multiple of the coordinates' magnitude is rounding noise: the centre is on the
// segment (64 ulp of the largest coordinate involved).
constexpr double kDegenerateRelativeDistance = 64.0 * 2.220446049250313e-16;

// The element's own sag of the arc gap for one segment: e_m and where the segment lies on the
// element (xi = xiStart + rho xiLength).
struct ElementSagSpan {
  double middle = 0.0;    // e_m, m; 0: none
  double xiStart = 0.0;   // i / n_cs
  double xiLength = 0.0;  // 1 / n_cs
};

inline SegmentGeometry segmentGeometry(const Vector2& p0, const Vector2& p1, const Vector2& centre, double radius,
                                       SegmentGapMeasure measure = SegmentGapMeasure::kChord,
                                       const ElementSagSpan& sag = ElementSagSpan{}) {
  SegmentGeometry g;
  g.direction = p1 - p0;
  const Vector2 vp = centre - p0;
  const double nRho = g.direction.dot(vp);
  const double dRho = g.direction.dot(g.direction);
  Vector2 d;
  if (dRho == 0.0) {  // coincident points
    g.rho = 0.0;
    d = vp;
    g.distance = d.norm();
  } else {
    g.rho = nRho / dRho;
    if (g.rho < 0.0) {
      g.rho = 0.0;
      d = vp;
      g.distance = d.norm();
    } else if (g.rho >= 1.0) {
      g.rho = 1.0;
      d = centre - p1;
      g.distance = d.norm();
    } else {
      d = centre - (p0 + g.rho * g.direction);
      const double radicand = vp.dot(vp) - nRho * nRho / dRho;
      g.distance = std::sqrt(radicand > 0.0 ? radicand : 0.0);  // clamped (docs/model_contact.md §4.2)
    }
  }
  g.surfaceRadius = radius;
  if (measure == SegmentGapMeasure::kArc && g.rho > 0.0 && g.rho < 1.0) {
    const double middle = g.rho * (1.0 - g.rho);
    const double weight = 4.0 * middle * middle;
    // Kept at or above (r/2)^2, reached only by a segment longer than sqrt(3) r (a mesh far too
    // coarse for the circle; the scenario check warns long before): there it stops following.
    const double radicand = radius * radius - weight * dRho;
    const double floor = 0.25 * radius * radius;
    if (radicand > floor) {
      g.surfaceRadius = std::sqrt(radicand);
      g.arcWeight = weight;
      g.arcWeightSlope = 8.0 * middle * (1.0 - 2.0 * g.rho);
    } else {
      g.surfaceRadius = 0.5 * radius;
    }
  }
  if (measure == SegmentGapMeasure::kArc && sag.middle > 0.0) {
    const double xi = sag.xiStart + g.rho * sag.xiLength;
    const double inner = xi * (1.0 - xi);
    g.elementSag = 16.0 * sag.middle * inner * inner;
    if (g.rho > 0.0 && g.rho < 1.0) g.elementSagSlope = 32.0 * sag.middle * inner * (1.0 - 2.0 * xi) * sag.xiLength;
  }
  g.gap = g.distance - g.surfaceRadius + g.elementSag;
  // The normal is d normalised by its own length |d|, not by delta: in the interior case delta
  // comes from the radicand, whose cancellation error (~sqrt(eps)|v_p|) makes -d/delta a short or
  // zero vector when the centre lies on the segment up to rounding. The centre counts as on the
  // segment when |d| is at the rounding level of the coordinates (or delta was clamped to 0).
  const double dLength = d.norm();
  const double scale = vp.cwiseAbs().maxCoeff() + g.direction.cwiseAbs().maxCoeff() +
                       centre.cwiseAbs().maxCoeff();
  if (g.distance > 0.0 && dLength > kDegenerateRelativeDistance * scale) {
    g.normal = -d / dLength;
  } else {
    // Centre on the segment: no direction is defined. Choose the segment's left normal (for a
    // belt running clockwise around the circle, the belt lies on that side) and flag it.
    g.degenerate = true;
    const double len = std::sqrt(dRho);
    g.normal = len > 0.0 ? Vector2(leftNormal(g.direction) / len) : Vector2(0.0, 1.0);
  }
  g.tangent = leftNormal(g.normal);
  return g;
}

// 1 / n for a segment count n: from a table up to 8 (the host's largest count), so that the
// segment geometry of every Newton iteration takes no double-precision divide for it (about 30
// cycles on the Cortex-M7); the same bits as the division.
inline double inverseSegmentCount(int n) {
  static constexpr double kInverse[9] = {0.0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8};
  return n >= 1 && n <= 8 ? kInverse[n] : 1.0 / n;
}

// Segment i of a pair with parameters p: the gap measure, the radius and the element's sag the
// parameters ask for.
inline SegmentGeometry segmentGeometry(const Vector2& p0, const Vector2& p1, const Vector2& centre,
                                       const ContactParameters& p, int i) {
  ElementSagSpan sag;
  if (p.elementSag > 0.0) {
    sag.middle = p.elementSag;
    sag.xiLength = inverseSegmentCount(p.segmentCount);
    sag.xiStart = i * sag.xiLength;
  }
  return segmentGeometry(p0, p1, centre, contactSurfaceRadius(p), p.gapMeasure, sag);
}

// Everything the force laws need of one segment at the current state.
struct SegmentKinematics {
  SegmentGeometry geometry;
  double normalVelocity = 0.0;      // v_n, m/s
  double tangentialVelocity = 0.0;  // v_t, m/s, relative to the circle surface (includes r omega)
  double stickingCoordinate = 0.0;  // x_cur, m (unwrapped)
};

// x_cur of a segment (needs an atan2; only the stick law and the PNS read it).
inline double stickingCoordinate(const ContactParameters& p, const SegmentGeometry& g, double length,
                                 const CircleState& circle) {
  // docs/model_contact.md §4.5: x_c = r * angle of n in the circle frame (atan2(n) - phi, which differs from
  // atan2(A^T n) only by multiples of 2 pi; only wrapped differences are used), plus the
  // segment part sigma rho L_seg with the orientation sign sigma.
  const double circlePart = p.radius * (detmath::atan2(g.normal(1), g.normal(0)) - circle.angle);
  const double sigma = g.tangent.dot(g.direction) > 0.0 ? -1.0 : 1.0;
  return circlePart + sigma * g.rho * (length / p.segmentCount);
}

// Whether the Newton-phase tangential force of a segment in this state reads x_cur.
inline bool newtonForceNeedsStickingCoordinate(const FrictionParameters& f, const SegmentHistory& h) {
  return f.law != TangentialLaw::kContinuous && h.state == StickSlip::kStick && f.bristleStiffness != 0.0;
}

// needSticking = false leaves stickingCoordinate at 0 (saves the atan2 where it is not read).
template <int MaxSegments>
SegmentKinematics segmentKinematics(const ContactParameters& p, const SegmentPoints<MaxSegments>& points, int i,
                                    double length, const CircleState& circle, bool needSticking = true) {
  SegmentKinematics k;
  k.geometry = segmentGeometry(points.position[i], points.position[i + 1], circle.centre, p, i);
  const SegmentGeometry& g = k.geometry;
  const Vector2 pointVelocity = (1.0 - g.rho) * points.velocity[i] + g.rho * points.velocity[i + 1];
  // Circle surface velocity at the contact includes the rotation r omega t (docs/model_contact.md §4.3, docs/model_differences.md §10.7).
  const Vector2 surfaceVelocity = circle.velocity + p.radius * circle.angularVelocity * g.tangent;
  const Vector2 relative = pointVelocity - surfaceVelocity;
  k.normalVelocity = relative.dot(g.normal);
  k.tangentialVelocity = relative.dot(g.tangent);
  if (needSticking && p.friction.bristleStiffness != 0.0) k.stickingCoordinate = stickingCoordinate(p, g, length, circle);
  return k;
}

// f_n = k_c g + d_c v_n (linear), or k_c sgn(g)|g|^n + d_c v_n; not clipped (docs/model_contact.md §4.4, docs/model_differences.md §10.16).
inline double normalForceLaw(const ContactParameters& p, double gap, double normalVelocity) {
  double spring = p.contactStiffness * gap;
  if (p.normalExponent != 1.0) {
    const double magnitude = p.normalExponent == 1.5 ? absOf(gap) * std::sqrt(absOf(gap))
                                                     : detmath::pow(absOf(gap), p.normalExponent);
    spring = p.contactStiffness * signOf(gap) * magnitude;
  }
  return spring + p.contactDamping * normalVelocity;
}

}  // namespace beltsim
