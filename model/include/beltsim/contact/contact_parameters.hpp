// The circle-segment contact's parameters (docs/model_contact.md §4.1): the circle's state as a pair
// sees it, what a segment's gap is measured against, the penalty and friction values and their
// check, and the radius allowances that depend on them.
#pragma once
#include <cmath>
#include <cstdint>

#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/element/segment_marker.hpp"  // Vector2

namespace beltsim {

// Kinematic state of a circle: centre, its velocity, rotation angle and angular velocity.
struct CircleState {
  Vector2 centre = Vector2::Zero();    // m
  Vector2 velocity = Vector2::Zero();  // m/s
  double angle = 0.0;                  // rad
  double angularVelocity = 0.0;        // rad/s
};

// What a segment's gap is measured against (scenario key contact.segment_gap; docs/model_contact.md §4.2).
//   kChord: the circle itself, as the paper ([P] eq. 7). A straight segment whose ends lie on
//     the belt's curve sags inside that curve by about L_s^2 / (8 r) at its middle, so the penalty
//     pushes the belt out until the chord, not the belt, touches the circle: on a coarse mesh every
//     wrap is too long by about theta L_s^2 / (8 r) and the belt's tension too high.
//   kArc: the circle's arc through the segment's ends. A chord of length L_s = |v_s| inscribed in
//     a circle of radius r has its closest point, its middle, at sqrt(r^2 - L_s^2 / 4) from the
//     centre, so the gap is measured against sqrt(r^2 - w(rho) |v_s|^2) with the weight
//     w = 4 rho^2 (1 - rho)^2 (1/4 at rho = 1/2): a belt whose segment ends lie on the circle has
//     gap 0 whatever the segment length. The weight fades to 0 with a zero slope where the closest
//     point reaches an end of the segment (rho = 0 or 1: a segment that meets the circle with one
//     end, at the edge of a wrap, is not an inscribed chord), so the gap stays smooth there.
//     The force keeps the segment's normal and the closest-point split of the paper.
//     The arc gap also allows for the element's own sag: the cubic Hermite curve through two nodes
//     on a circle of radius r, with the circle's tangents scaled to the arc length, runs inside the
//     circle by r (alpha^2 - phi^2)^2 / 24 (the Hermite remainder; phi the angle from the element's
//     middle, alpha half the element's angle L / (2 r)), that is e_m 16 xi^2 (1 - xi)^2 at the
//     element coordinate xi in [0, 1] with e_m = r alpha^4 / 24 (ContactParameters::elementSag).
//     Without it the penalty pushes the element's middle out by e_m, which the element can only do
//     with a strain that is high at its nodes and low at its middle, which adds to the tension of
//     a belt at rest on a coarse mesh (docs/validation_and_convergence.md, *Segment geometry*).
enum class SegmentGapMeasure : std::uint8_t { kChord = 0, kArc = 1 };

struct ContactParameters {
  int segmentCount = 4;            // n_cs, at most the pair's compile-time maximum
  double contactStiffness = 0.0;   // k_c, N/m per segment (N/m^n for the exponent law)
  double contactDamping = 0.0;     // d_c, N s/m per segment
  double normalExponent = 1.0;     // n of f_n = k_c |g|^n (paper [P] eq. 9); 1 = linear, 1.5 = Hertz
  FrictionParameters friction;
  double radius = 0.0;             // r, contact radius of the circle, m
  double offset = 0.0;             // h_o, segment points' offset along the element normal, m
  double beltWidth = 1.0;          // b, m; only for contact stresses (force / (b L_seg))
  bool useSegmentNormals = true;   // SN (default) or point-wise normals (PWN), docs/model_contact.md §4.8
  bool useBoundingBox = true;      // skip pairs whose element box is clear of the circle (docs/model_contact.md §5)
  SegmentGapMeasure gapMeasure = SegmentGapMeasure::kChord;
  // m; the gap is measured to a circle of radius r + radiusAllowance (the torque arm and x_cur keep
  // r), so that a loaded belt sits on r instead of inside it.
  double radiusAllowance = 0.0;
  // N; > 0: BeltDrive::setUp sets each circle's radiusAllowance to the penetration of a segment
  // under this belt tension (penetrationUnderTension; contactFromPerArea gives the pre-tension when
  // the scenario asks for contact.penetration_compensation). 0: radiusAllowance as given.
  double compensatedTension = 0.0;
  // m; e_m, the element's own sag at its middle on this circle (arc gap only; see SegmentGapMeasure).
  // BeltDrive::setUp sets it from the element length and the circle (cubicArcSag); 0: none.
  double elementSag = 0.0;
};

// e_m = r alpha^4 / 24 with alpha = L / (2 r), the inward sag at the middle of a cubic Hermite
// element of arc length L laid on a circle of radius r (SegmentGapMeasure). alpha is held at 1 (an
// element of two radians and more; e_m = r / 24), far beyond the coarse-mesh warning's limit.
inline double cubicArcSag(double elementLength, double radius) {
  if (!(elementLength > 0.0) || !(radius > 0.0)) return 0.0;
  double alpha = 0.5 * elementLength / radius;
  if (alpha > 1.0) alpha = 1.0;
  const double a2 = alpha * alpha;
  return radius * a2 * a2 / 24.0;
}

// Penetration (m) of a segment of length segmentLength under a belt of tension T (N) wrapped on the
// circle: its normal load is T times the angle it spans, T L_s / r, and the penetration is what the
// contact law needs for that load, (T L_s / (r k_c))^(1/n). The same for any contact stiffness, the
// belt's path over a compensated circle has the length of a belt that sits on r at that tension.
inline double penetrationUnderTension(const ContactParameters& p, double tension, double segmentLength) {
  if (!(tension > 0.0) || !(p.contactStiffness > 0.0) || !(p.radius > 0.0)) return 0.0;
  const double ratio = tension * segmentLength / (p.radius * p.contactStiffness);
  if (p.normalExponent == 1.0) return ratio;
  return detmath::pow(ratio, 1.0 / p.normalExponent);
}

// Radius of the circle the gaps are measured against, m.
inline double contactSurfaceRadius(const ContactParameters& p) { return p.radius + p.radiusAllowance; }

template <int MaxSegments>
ParameterError validateContactParameters(const ContactParameters& p) {
  if (p.segmentCount < 1 || p.segmentCount > MaxSegments) return ParameterError::invalid("segmentCount");
  if (!(isFinite(p.contactStiffness) && p.contactStiffness >= 0)) return ParameterError::invalid("contactStiffness");
  if (!(isFinite(p.contactDamping) && p.contactDamping >= 0)) return ParameterError::invalid("contactDamping");
  if (!(isFinite(p.normalExponent) && p.normalExponent >= 1.0 && p.normalExponent <= 4.0))
    return ParameterError::invalid("normalExponent");
  if (!(isFinite(p.friction.frictionCoefficient) && p.friction.frictionCoefficient >= 0))
    return ParameterError::invalid("frictionCoefficient");
  if (!(isFinite(p.friction.bristleStiffness) && p.friction.bristleStiffness >= 0))
    return ParameterError::invalid("bristleStiffness");
  if (!(isFinite(p.friction.velocityPenalty) && p.friction.velocityPenalty >= 0))
    return ParameterError::invalid("velocityPenalty");
  if (!(isFinite(p.friction.characteristicVelocity) && p.friction.characteristicVelocity > 0))
    return ParameterError::invalid("characteristicVelocity");
  if (p.friction.stickMemory != StickMemory::kSegment && p.friction.stickMemory != StickMemory::kWholeElement)
    return ParameterError::invalid("stickMemory");
  if (!(isFinite(p.radius) && p.radius > 0)) return ParameterError::invalid("radius");
  if (!isFinite(p.offset)) return ParameterError::invalid("offset");
  if (!(isFinite(p.radiusAllowance) && p.radiusAllowance >= 0 && p.radiusAllowance < 0.5 * p.radius))
    return ParameterError::invalid("radiusAllowance");
  if (!(isFinite(p.elementSag) && p.elementSag >= 0 && p.elementSag <= p.radius / 24.0))
    return ParameterError::invalid("elementSag");
  if (!(isFinite(p.compensatedTension) && p.compensatedTension >= 0))
    return ParameterError::invalid("compensatedTension");
  if (p.gapMeasure != SegmentGapMeasure::kChord && p.gapMeasure != SegmentGapMeasure::kArc)
    return ParameterError::invalid("gapMeasure");
  if (p.gapMeasure == SegmentGapMeasure::kArc && !p.useSegmentNormals)
    return ParameterError::invalid("gapMeasure");  // the arc gap is defined for segment normals only
  if (!(isFinite(p.beltWidth) && p.beltWidth > 0)) return ParameterError::invalid("beltWidth");
  return ParameterError::success();
}

// Penalty potential of one segment gap (J): the integral of the normal force law's spring part
// (system/energy.hpp; the eulerian drive's moving stations, whose contact scales with the length).
inline double contactPotential(const ContactParameters& p, double gap) {
  if (gap > 0.0) return 0.0;
  const double depth = -gap;
  if (p.normalExponent == 1.0) return 0.5 * p.contactStiffness * depth * depth;
  const double power = p.normalExponent == 1.5 ? depth * std::sqrt(depth) : detmath::pow(depth, p.normalExponent);
  return p.contactStiffness * depth * power / (p.normalExponent + 1.0);
}

}  // namespace beltsim
