// Penalty contact between a circle (pulley, roll) and one ANCF cable element, with bristle
// friction and history variables (paper [P] Sects. 2.2-2.5; [D]; docs/model.md §4, §5).
// One ContactPair per (element, circle). All forces are LHS quantities (docs/model.md §0.2): the belt
// receives -F physically, the circle +F_sum and the torque +T_sum.
//
// Phases of one time step:
//   beginStep()                  D0 := D
//   evaluateNewton() / jacobian  forces with the history D frozen (no switching inside Newton)
//   postNewtonStep()             updates D from the converged state, returns e_PNS (N)
#pragma once
#include <cmath>
#include <cstdint>

#include "beltsim/contact/bounding_box.hpp"
#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/element/segment_marker.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

// Kinematic state of a circle: centre, its velocity, rotation angle and angular velocity.
struct CircleState {
  Vector2 centre = Vector2::Zero();    // m
  Vector2 velocity = Vector2::Zero();  // m/s
  double angle = 0.0;                  // rad
  double angularVelocity = 0.0;        // rad/s
};

// What a segment's gap is measured against (issue 33; scenario key contact.segment_gap).
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
//     Tried and dropped (issue 33 notes): the arc's own radius at rho, sqrt(r^2 - rho (1 - rho)
//     L_s^2), whose kink at rho = 0, 1 left 66 of 2450 steps of the microcontroller configuration
//     flagged instead of 34; w = 1/4 everywhere (17 flagged), which pushes on straight segments
//     next to a wrap by their sag and lost the static equilibrium at 12 elements; and a plateau of
//     1/4 with smooth fades over rho < 1/4 and rho > 3/4 (118 flagged, no static equilibrium at 12).
//     The force keeps the segment's normal and the closest-point split of the paper.
//     The arc gap also allows for the element's own sag: the cubic Hermite curve through two nodes
//     on a circle of radius r, with the circle's tangents scaled to the arc length, runs inside the
//     circle by r (alpha^2 - phi^2)^2 / 24 (the Hermite remainder; phi the angle from the element's
//     middle, alpha half the element's angle L / (2 r)), that is e_m 16 xi^2 (1 - xi)^2 at the
//     element coordinate xi in [0, 1] with e_m = r alpha^4 / 24 (ContactParameters::elementSag).
//     Without it the penalty pushes the element's middle out by e_m, which the element can only do
//     with a strain that is high at its nodes and low at its middle: the 12-element belt at rest
//     carried +2.6 % of its tension (0.31 mm sag), +0.19 % at 24 elements (0.02 mm).
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
  bool useSegmentNormals = true;   // SN (default) or point-wise normals (PWN), docs/model.md §4.8
  bool useBoundingBox = true;      // skip pairs whose element box is clear of the circle (docs/model.md §5)
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

// Closest point of a segment to the circle centre, gap and contact frame (docs/model.md §4.2).
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
      g.distance = std::sqrt(radicand > 0.0 ? radicand : 0.0);  // clamped (docs/model.md §4.2)
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
  // docs/model.md §4.5: x_c = r * angle of n in the circle frame (atan2(n) - phi, which differs from
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
  // Circle surface velocity at the contact includes the rotation r omega t (docs/model.md §4.3, §11.8).
  const Vector2 surfaceVelocity = circle.velocity + p.radius * circle.angularVelocity * g.tangent;
  const Vector2 relative = pointVelocity - surfaceVelocity;
  k.normalVelocity = relative.dot(g.normal);
  k.tangentialVelocity = relative.dot(g.tangent);
  if (needSticking && p.friction.bristleStiffness != 0.0) k.stickingCoordinate = stickingCoordinate(p, g, length, circle);
  return k;
}

// f_n = k_c g + d_c v_n (linear), or k_c sgn(g)|g|^n + d_c v_n; not clipped (docs/model.md §4.4, §11.17).
inline double normalForceLaw(const ContactParameters& p, double gap, double normalVelocity) {
  double spring = p.contactStiffness * gap;
  if (p.normalExponent != 1.0) {
    const double magnitude = p.normalExponent == 1.5 ? absOf(gap) * std::sqrt(absOf(gap))
                                                     : detmath::pow(absOf(gap), p.normalExponent);
    spring = p.contactStiffness * signOf(gap) * magnitude;
  }
  return spring + p.contactDamping * normalVelocity;
}

// LHS contributions of one pair: element (8), circle coordinates (x, y, phi).
struct PairForces {
  Vector8 element = Vector8::Zero();
  Vector2 circleForce = Vector2::Zero();  // LHS on (x, y) of the circle: -F_sum
  double circleTorque = 0.0;              // LHS on phi: -T_sum
  int activeSegments = 0;                 // segments with g^D <= 0
  bool degenerate = false;                // a flagged segment had the centre on it
};

// The segment points and the kinematics of the segments that a Newton-phase force evaluation
// computed: a post-Newton step at the same state (the same q, q_dot and circle) takes them
// instead of computing them again. Only the segments in contact are evaluated there (known).
template <int MaxSegments>
struct PairKinematics {
  SegmentPoints<MaxSegments> points;
  SegmentKinematics segment[MaxSegments];
  bool known[MaxSegments] = {};
  bool stickingKnown[MaxSegments] = {};  // segment[i].stickingCoordinate was computed (stick law)
};

// Per-segment outputs (docs/model.md §4.10, with physical-unit stresses).
struct SegmentOutput {
  double gap = 0.0;               // m (current geometry)
  double normalForce = 0.0;       // f_n, N, LHS sign (< 0 in compression); 0 if not flagged
  double tangentialForce = 0.0;   // f_t, N, LHS sign; 0 if not flagged
  double normalStress = 0.0;      // f_n / (b L_seg), N/m^2
  double tangentialStress = 0.0;  // f_t / (b L_seg), N/m^2
  StickSlip state = StickSlip::kUndefined;
  double stickingDisplacement = 0.0;  // wrap(x_cur - x_stick) while sticking, else 0, m
};

template <int MaxSegments = 4>
class ContactPair {
 public:
  static constexpr int kMaxSegments = MaxSegments;
  static constexpr int kLocalCoordinates = 11;  // 8 element + circle (x, y, phi)
  using Matrix11 = Eigen::Matrix<double, kLocalCoordinates, kLocalCoordinates>;
  using Vector11 = Eigen::Matrix<double, kLocalCoordinates, 1>;

  ParameterError setUp(const ContactParameters& parameters) {
    const ParameterError e = validateContactParameters<MaxSegments>(parameters);
    if (!e.ok()) return e;
    p_ = parameters;
    anchorlessRenewing_ = false;  // the reference stepping's view until a fixed-cost stepper prepares
    reset();
    return e;
  }
  // Initial history [0.1, undefined, 0] (docs/model.md §4.1, §11.16).
  void reset() {
    for (int i = 0; i < MaxSegments; ++i) current_[i] = SegmentHistory{};
    beginStep();
  }
  const ContactParameters& parameters() const { return p_; }
  const SegmentHistory& history(int i) const { return current_[i]; }
  // Segment i's history as the fixed-cost stepping's decided forces and kept matrix take it:
  // D, with a segment renewing its anchor (renewsAnchor) as a contact without an anchor yet.
  SegmentHistory decidedHistory(int i) const { return decidedView(i, current_[i]); }
  // true (the fixed-cost stepping, BeltDrive::setAnchorlessRenewing): every Newton-phase force of
  // the pair takes the decided view, also in the iterations with frozen states and the
  // post-Newton pass, so that they match the kept matrix.
  void setAnchorlessRenewing(bool anchorless) { anchorlessRenewing_ = anchorless; }
  bool anchorlessRenewing() const { return anchorlessRenewing_; }
  const SegmentHistory& startOfStepHistory(int i) const { return startOfStep_[i]; }
  void setHistory(int i, const SegmentHistory& h) { current_[i] = h; }

  void beginStep() {
    for (int i = 0; i < MaxSegments; ++i) {
      startOfStep_[i] = current_[i];
      decidedSwitches_[i] = 0;
    }
  }
  void rejectStep() {
    for (int i = 0; i < MaxSegments; ++i) current_[i] = startOfStep_[i];
  }
  // Whether the Newton-phase forces (evaluateNewton) of this pair read the same history as
  // `other`, an earlier copy of it: per segment the contact flag, the stick/slip state and, for a
  // sticking segment, its anchor. The post-Newton step rewrites every gap, but only its sign
  // reaches those forces.
  bool sameNewtonHistory(const SegmentHistory (&other)[MaxSegments]) const {
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const SegmentHistory& a = current_[i];
      const SegmentHistory& b = other[i];
      if ((a.gap <= 0.0) != (b.gap <= 0.0) || a.state != b.state) return false;
      if (a.state == StickSlip::kStick && !(a.stickingPosition == b.stickingPosition)) return false;
    }
    return true;
  }
  void copyHistory(SegmentHistory (&out)[MaxSegments]) const {
    for (int i = 0; i < MaxSegments; ++i) out[i] = current_[i];
  }
  bool anyFlagged() const {
    for (int i = 0; i < MaxSegments; ++i)
      if (i < p_.segmentCount && current_[i].gap <= 0.0) return true;
    return false;
  }

  // What the pair's Newton-phase Jacobian depends on besides the coordinates: per segment
  // whether it is flagged (gap <= 0) and its stick/slip state, 4 bits each. Two equal signatures
  // give Jacobians that differ only through the coordinates (and the friction force's size).
  // undefinedSticks = true: a flagged segment without a state yet counts as sticking (the kept
  // matrix of the fixed-cost stepping enters a new contact with the stick tangent).
  // decided = true: the states as the fixed-cost stepping's decided forces take them
  // (decidedHistory).
  std::uint64_t jacobianSignature(bool undefinedSticks = false, bool decided = false) const {
    static_assert(MaxSegments <= 16, "4 bits per segment in 64 bits");
    std::uint64_t signature = 0;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const bool flagged = current_[i].gap <= 0.0;
      StickSlip state = decided ? decidedView(i, current_[i]).state : current_[i].state;
      if (undefinedSticks && flagged && current_[i].state == StickSlip::kUndefined) state = StickSlip::kStick;
      const std::uint64_t nibble = (flagged ? 8u : 0u) | (static_cast<std::uint64_t>(static_cast<std::uint8_t>(state)) & 7u);
      signature |= nibble << (4 * i);
    }
    return signature;
  }

  // Newton-phase LHS forces with the history frozen (docs/model.md §4.6, §4.8).
  Status evaluateNewton(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                        PairForces& out, PairKinematics<MaxSegments>* keep = nullptr) const {
    out = PairForces{};
    if (!anyFlagged()) return Status::kOk;
    SegmentShapeTable<MaxSegments> table;
    table.build(length, p_.segmentCount);
    return evaluateNewton(q, qDot, table, circle, out, keep);
  }

  // Same, with the shape functions from a table (built for this length and p.segmentCount).
  // keep (optional): receives the segment points and the evaluated segments' kinematics.
  Status evaluateNewton(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                        const CircleState& circle, PairForces& out, PairKinematics<MaxSegments>* keep = nullptr) const {
    out = PairForces{};
    if (!anyFlagged()) return Status::kOk;
    if (table.segmentCount != p_.segmentCount) return evaluateNewton(q, qDot, table.length, circle, out, keep);
    return forces(q, qDot, table, circle, nullptr, nullptr, out, keep);
  }

  // Whether the pair can touch the circle within this step: some segment's start-of-step gap (or
  // the bounding box's, a lower bound) is at most `margin` (m).
  bool candidate(double margin) const {
    for (int i = 0; i < MaxSegments; ++i)
      if (i < p_.segmentCount && startOfStep_[i].gap <= margin) return true;
    return false;
  }

  // The LHS forces with every segment's contact and stick/slip state decided at this point, by
  // the post-Newton step's own rule from the start-of-step history D0 (docs/model.md §4.7): contact where
  // the gap is <= 0; stick where the bristle's linear force mu_v v_t + mu_k (x_cur - x_stick)
  // stays within mu |f_n|, else slip at mu |f_n|. The decided states become the current history D
  // (what the Newton matrix and its switch updates read). At a converged point the forces and
  // states are those of a converged post-Newton loop; the fixed-cost stepping uses it so that
  // stick/slip switches happen inside its Newton iterations instead of in passes around them.
  Status evaluateDecided(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                         const CircleState& circle, PairForces& out) {
    out = PairForces{};
    if (table.segmentCount != p_.segmentCount) return Status::kInvalidParameter;
    SegmentHistory decided[MaxSegments];
    for (int i = 0; i < MaxSegments; ++i) decided[i] = current_[i];
    const Status s = forces(q, qDot, table, circle, decided, decidedSwitches_, out);
    for (int i = 0; i < MaxSegments; ++i) current_[i] = decided[i];
    return s;
  }
  // A segment whose stick/slip state has switched this many times within a step keeps its state
  // for the rest of the step's Newton iterations (the post-Newton pass decides it at the end):
  // without this, a segment at the edge of a slip arc can alternate at every iteration.
  static constexpr int kMaxDecidedSwitches = 2;

  // LHS vector of the 11 local coordinates (element, circle x, y, phi).
  Status localLhs(const Vector11& position, const Vector11& velocity, double length, Vector11& lhs) const {
    const Vector8 q = position.template head<8>();
    const Vector8 qDot = velocity.template head<8>();
    CircleState circle;
    circle.centre = Vector2(position(8), position(9));
    circle.angle = position(10);
    circle.velocity = Vector2(velocity(8), velocity(9));
    circle.angularVelocity = velocity(10);
    PairForces f;
    const Status s = evaluateNewton(q, qDot, length, circle, f);
    lhs.template head<8>() = f.element;
    lhs(8) = f.circleForce(0);
    lhs(9) = f.circleForce(1);
    lhs(10) = f.circleTorque;
    return s;
  }

  // Stiffness dLHS/dq and damping dLHS/dq_dot over the 11 local coordinates, by central
  // differences inside this fixed-size block with the history frozen (docs/model.md §4.9 allows numerical
  // differentiation; the reference uses forward differences). Zero if no segment is flagged.
  // Steps: 1e-7 max(1e-2, |q_j|) for positions (the reference's rule), 1e-7 max(1, |v_j|) for
  // velocities. The LHS is affine in the velocities except for the continuous law (scale v0) and
  // |f_n| in the slip force, so the velocity step is limited by rounding, eps |LHS| / step, not by
  // truncation; the reference's floor 1e-2 (step 1e-9 m/s at rest) made that error ~1e-4 of the
  // damping entries when |LHS| / d_c is large (the floor 1 keeps (step / v0)^2 <= 1e-8 for v0 >= 1e-3).
  Status jacobian(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                  Matrix11& stiffness, Matrix11& damping) const {
    stiffness.setZero();
    damping.setZero();
    if (!anyFlagged()) return Status::kOk;
    Vector11 x, v;
    x << q, circle.centre, circle.angle;
    v << qDot, circle.velocity, circle.angularVelocity;
    Vector11 plus, minus;
    for (int j = 0; j < kLocalCoordinates; ++j) {
      const double h = 1e-7 * std::fmax(1e-2, absOf(x(j)));
      Vector11 xp = x, xm = x;
      xp(j) += h;
      xm(j) -= h;
      Status s = localLhs(xp, v, length, plus);
      if (s == Status::kOk) s = localLhs(xm, v, length, minus);
      if (s != Status::kOk) return s;
      stiffness.col(j) = (plus - minus) / (xp(j) - xm(j));
    }
    for (int j = 0; j < kLocalCoordinates; ++j) {
      const double h = 1e-7 * std::fmax(1.0, absOf(v(j)));
      Vector11 vp = v, vm = v;
      vp(j) += h;
      vm(j) -= h;
      Status s = localLhs(x, vp, length, plus);
      if (s == Status::kOk) s = localLhs(x, vm, length, minus);
      if (s != Status::kOk) return s;
      damping.col(j) = (plus - minus) / (vp(j) - vm(j));
    }
    return Status::kOk;
  }

  // Post-Newton step (docs/model.md §4.7, with the bounding-box rules of §5.6). Updates the current
  // history D from the converged state, reading anchors from D0. Returns e_PNS = e_n + e_t, the
  // sum over the segments (N).
  Status postNewtonStep(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                        double& error) {
    SegmentShapeTable<MaxSegments> table;
    table.build(length, p_.segmentCount);
    return postNewtonStep(q, qDot, table, circle, error);
  }

  // Same, with the shape functions from a table (built for this length and p.segmentCount).
  // known (optional): what a Newton-phase evaluation at this same state computed (its points,
  // and the kinematics of its segments in contact); the rest is computed here, with the same bits.
  Status postNewtonStep(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                        const CircleState& circle, double& error, const PairKinematics<MaxSegments>* known = nullptr) {
    error = 0.0;
    if (table.segmentCount != p_.segmentCount) return postNewtonStep(q, qDot, table.length, circle, error);
    const double length = table.length;
    // A pair with a segment in contact takes the exact gaps below whatever its box says (a
    // segment leaving contact stores its exact gap, as the reference does); only the others
    // need the box.
    if (p_.useBoundingBox && !anyFlagged()) {
      BoundingBox box = elementBoundingBox(q, length);
      box.inflate(absOf(p_.offset) + kBoxMargin);
      if (box.separatedFromCircle(circle.centre, contactSurfaceRadius(p_))) {
        // Skipped pair: every gap is positive; store a positive surrogate (docs/model.md §5.6).
        const double surrogate = boxDistance(box, circle.centre) - contactSurfaceRadius(p_);
        for (int i = 0; i < MaxSegments; ++i) {
          if (i >= p_.segmentCount) break;
          current_[i].gap = surrogate;
          current_[i].state = StickSlip::kUndefined;
          current_[i].heldByElement = false;
        }
        return Status::kOk;
      }
    }
    SegmentPoints<MaxSegments> localPoints;
    if (known == nullptr) {
      const Status s = computeSegmentPoints(q, qDot, table, p_.offset, localPoints);
      if (s != Status::kOk) return s;
    }
    const SegmentPoints<MaxSegments>& points = known != nullptr ? known->points : localPoints;
    bool degenerate = false;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      SegmentKinematics k = known != nullptr && known->known[i] ? known->segment[i]
                                                                 : segmentKinematics(p_, points, i, length, circle, false);
      const double gap = k.geometry.gap;
      if (k.geometry.degenerate) degenerate = true;
      SegmentHistory& d = current_[i];
      const bool wasOpen = d.gap > 0.0;
      if ((gap > 0.0 && d.gap <= 0.0) || (gap <= 0.0 && d.gap > 0.0)) {
        error += p_.contactStiffness * absOf(gap - d.gap);  // e_n: gap sign changed
      }
      d.gap = gap;
      if (gap <= 0.0 && frictional()) {
        const bool stickingKnown = known != nullptr && known->known[i] && known->stickingKnown[i];
        if (p_.friction.bristleStiffness != 0.0 && !stickingKnown)
          k.stickingCoordinate = stickingCoordinate(p_, k.geometry, length, circle);
        const double fn = normalForceLaw(p_, gap, k.normalVelocity);
        const TangentialPnsResult t = pnsTangential(p_.friction, d, anchorSource(i), fn, k.tangentialVelocity,
                                                    k.stickingCoordinate, wrapPeriod());
        // e_t: the excess over mu |f_n| measures how far the force the Newton phase applied is from
        // the new state's. A segment that was not in contact applied none, so when it slips at once
        // (its velocity penalty beyond mu |f_n|, bristle_friction.hpp) the change is mu |f_n|, not
        // the excess: in gross slip the excess of a segment landing on the pulley is ~10 times that.
        error += wasOpen && isSlipping(t.state) ? p_.friction.frictionCoefficient * absOf(fn) : t.error;
        d.state = t.state;
        d.stickingPosition = t.stickingPosition;
      } else {
        d.state = StickSlip::kUndefined;
      }
      d.heldByElement = heldAfterStep(i, gap <= 0.0);
    }
    return degenerate ? Status::kDegenerateState : Status::kOk;
  }

  // Outputs per segment with the current history (docs/model.md §4.10).
  Status outputs(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                 SegmentOutput (&out)[MaxSegments]) const {
    for (int i = 0; i < MaxSegments; ++i) out[i] = SegmentOutput{};
    SegmentPoints<MaxSegments> points;
    const Status s = computeSegmentPoints(q, qDot, length, p_.segmentCount, p_.offset, points);
    if (s != Status::kOk) return s;
    const double area = p_.beltWidth * length / p_.segmentCount;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const SegmentKinematics k = segmentKinematics(p_, points, i, length, circle);
      out[i].gap = k.geometry.gap;
      out[i].state = current_[i].state;
      if (current_[i].gap > 0.0) continue;
      const double fn = normalForceLaw(p_, k.geometry.gap, k.normalVelocity);
      const SegmentHistory pulling = anchorlessRenewing_ ? decidedView(i, current_[i]) : current_[i];
      const double ft = newtonTangentialForce(p_.friction, pulling, fn, k.tangentialVelocity,
                                              k.stickingCoordinate, wrapPeriod());
      out[i].normalForce = fn;
      out[i].tangentialForce = ft;
      out[i].normalStress = fn / area;
      out[i].tangentialStress = ft / area;
      if (current_[i].state == StickSlip::kStick && p_.friction.bristleStiffness != 0.0) {
        out[i].stickingDisplacement =
            wrappedDifference(k.stickingCoordinate - pulling.stickingPosition, wrapPeriod());
      }
    }
    return Status::kOk;
  }

 private:
  // Forces of the segments in contact. decided == nullptr: the history D as it stands (Newton
  // phase, docs/model.md §4.6). Otherwise each segment's state is decided here and written to decided[i]
  // (switches[i] counts its stick/slip switches within the step).
  Status forces(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                const CircleState& circle, SegmentHistory* decided, std::uint8_t* switches, PairForces& out,
                PairKinematics<MaxSegments>* keep = nullptr) const {
    const double length = table.length;
    SegmentPoints<MaxSegments> localPoints;
    SegmentPoints<MaxSegments>& points = keep != nullptr ? keep->points : localPoints;
    if (keep != nullptr)
      for (int i = 0; i < MaxSegments; ++i) keep->known[i] = keep->stickingKnown[i] = false;
    const Status s = computeSegmentPoints(q, qDot, table, p_.offset, points);
    if (s != Status::kOk) return s;
    Vector2 pointForce[MaxSegments + 1];
    for (int k = 0; k <= MaxSegments; ++k) pointForce[k].setZero();
    Vector2 forceSum = Vector2::Zero();
    double torqueSum = 0.0;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      SegmentHistory h = anchorlessRenewing_ ? decidedView(i, current_[i]) : current_[i];
      SegmentKinematics k;
      double fn = 0.0;
      if (decided == nullptr) {
        if (h.gap > 0.0) continue;
        k = segmentKinematics(p_, points, i, length, circle, newtonForceNeedsStickingCoordinate(p_.friction, h));
        if (keep != nullptr) {
          keep->segment[i] = k;
          keep->known[i] = true;
          keep->stickingKnown[i] = newtonForceNeedsStickingCoordinate(p_.friction, h);
        }
        fn = normalForceLaw(p_, k.geometry.gap, k.normalVelocity);
      } else {
        k = segmentKinematics(p_, points, i, length, circle, false);
        h = decideSegment(i, k, length, circle, switches[i], fn);
        decided[i] = h;
        if (h.gap > 0.0) continue;
      }
      const SegmentGeometry& g = k.geometry;
      if (g.degenerate) out.degenerate = true;
      // The fixed-cost stepping's decided forces: a renewing segment, anchored where each iteration
      // finds it, pulls with the velocity penalty alone (decidedView), as its kept matrix has it.
      const double ft = newtonTangentialForce(p_.friction, decided != nullptr ? decidedView(i, h) : h, fn,
                                              k.tangentialVelocity, k.stickingCoordinate, wrapPeriod());
      ++out.activeSegments;
      if (p_.useSegmentNormals) {
        const Vector2 f = fn * g.normal + ft * g.tangent;
        pointForce[i] += (1.0 - g.rho) * f;
        pointForce[i + 1] += g.rho * f;
        forceSum += f;
      } else {
        // Point-wise normals (docs/model.md §4.8 PWN): each endpoint uses its own normal direction.
        const Vector2 fl = pointFrameForce(points.position[i], circle.centre, fn, ft);
        const Vector2 fr = pointFrameForce(points.position[i + 1], circle.centre, fn, ft);
        pointForce[i] += (1.0 - g.rho) * fl;
        pointForce[i + 1] += g.rho * fr;
        forceSum += (1.0 - g.rho) * fl + g.rho * fr;
      }
      torqueSum += p_.radius * ft;
    }
    for (int k = 0; k <= MaxSegments; ++k) {
      if (k > p_.segmentCount) break;
      addPointForce(table.shape[k], points.slope[k], points.tangent[k], points.slopeSquared[k], p_.offset,
                    pointForce[k], out.element);
    }
    out.circleForce = -forceSum;
    out.circleTorque = -torqueSum;
    return Status::kOk;
  }

  // Contact and stick/slip state of segment i at kinematics k (evaluateDecided), by the
  // post-Newton step's rule from D0; fn is set if the segment is in contact. After
  // kMaxDecidedSwitches changes of either kind within the step the segment keeps the state it has
  // (a contact kept at a positive gap then pulls with the unclipped law, as a flagged segment does
  // in the reference's Newton phase): at the edge of a slip arc, or with a gap near 0, the state
  // can otherwise alternate at every iteration.
  SegmentHistory decideSegment(int i, SegmentKinematics& k, double length, const CircleState& circle,
                               std::uint8_t& switches, double& fn) const {
    const SegmentHistory& before = current_[i];
    SegmentHistory h = before;
    const double g = k.geometry.gap;
    bool contact = g <= 0.0;
    if (contact != (before.gap <= 0.0)) {
      if (switches >= kMaxDecidedSwitches) {
        contact = !contact;
      } else {
        ++switches;
      }
    }
    // The gap is the contact flag (<= 0: in contact): a kept state is stored at the nearest value.
    h.gap = contact ? (g < 0.0 ? g : 0.0) : (g > 0.0 ? g : kKeptOpenGap);
    h.state = StickSlip::kUndefined;
    h.heldByElement = heldAfterStep(i, contact);
    if (!contact) return h;
    fn = normalForceLaw(p_, g, k.normalVelocity);
    if (!frictional()) return h;
    if (p_.friction.bristleStiffness != 0.0) k.stickingCoordinate = stickingCoordinate(p_, k.geometry, length, circle);
    const TangentialPnsResult t = pnsTangential(p_.friction, h, anchorSource(i), fn, k.tangentialVelocity,
                                                k.stickingCoordinate, wrapPeriod());
    const bool switched = before.gap <= 0.0 && before.state != StickSlip::kUndefined && t.state != before.state;
    if (switched && switches >= kMaxDecidedSwitches) {
      h.state = before.state;
      h.stickingPosition = before.stickingPosition;
      return h;
    }
    if (switched) ++switches;
    h.state = t.state;
    h.stickingPosition = t.stickingPosition;
    return h;
  }
  static constexpr double kKeptOpenGap = 1e-12;  // m

  // What the post-Newton step of segment i reads its anchor from: D0 (docs/model.md §11.19), or, for a
  // segment renewing its anchor (renewsAnchor), D0 without its anchor, so that the step anchors the
  // segment where it finds it.
  SegmentHistory anchorSource(int i) const {
    SegmentHistory s = startOfStep_[i];
    if (renewsAnchor(i)) s.state = StickSlip::kUndefined;
    return s;
  }
  // StickMemory::kWholeElement: segment i renews its anchor in this step if it stuck at the start
  // of the step, is not held (heldAfterStep) and its element was not wholly on the circle. Each
  // post-Newton step anchors it where it finds it. The reference stepping's Newton phase reads the
  // anchor the last post-Newton pass stored, as for any segment. The fixed-cost stepping decides
  // states in every Newton iteration, so there the segment is anchored where each iteration finds
  // it and pulls with the velocity penalty alone: its decided force, its kept matrix and that
  // matrix's signature take it as a contact without an anchor yet (decidedView).
  bool renewsAnchor(int i) const {
    const SegmentHistory& s = startOfStep_[i];
    return p_.friction.stickMemory == StickMemory::kWholeElement && s.state == StickSlip::kStick && s.gap <= 0.0 &&
           !s.heldByElement && !wholeElementAtStepStart();
  }
  SegmentHistory decidedView(int i, SegmentHistory h) const {
    if (h.state == StickSlip::kStick && renewsAnchor(i)) h.state = StickSlip::kUndefined;
    return h;
  }
  // StickMemory::kWholeElement: whether segment i keeps its anchors from the next step on. It is
  // held from the step its element lay wholly on the circle (every segment in contact at the step's
  // start) until it leaves contact: an element bending onto the circle renews its anchors, one
  // leaving it (at the end of a wrap, where the slip arc is) keeps them.
  bool heldAfterStep(int i, bool inContact) const {
    if (p_.friction.stickMemory != StickMemory::kWholeElement || !inContact) return false;
    return startOfStep_[i].heldByElement || wholeElementAtStepStart();
  }
  bool wholeElementAtStepStart() const {
    for (int j = 0; j < MaxSegments; ++j) {
      if (j >= p_.segmentCount) break;
      if (startOfStep_[j].gap > 0.0) return false;
    }
    return true;
  }

  bool frictional() const {
    return p_.friction.bristleStiffness != 0.0 || p_.friction.velocityPenalty != 0.0 ||
           p_.friction.law == TangentialLaw::kContinuous;
  }

  static constexpr double kBoxMargin = 1e-9;  // m, safety margin of the pre-check (docs/model.md §5.4)

  double wrapPeriod() const { return 2.0 * detmath::kPi * p_.radius; }

  static double boxDistance(const BoundingBox& box, const Vector2& c) {
    const double dx = detail::larger(detail::larger(box.lower(0) - c(0), 0.0), c(0) - box.upper(0));
    const double dy = detail::larger(detail::larger(box.lower(1) - c(1), 0.0), c(1) - box.upper(1));
    return std::sqrt(dx * dx + dy * dy);
  }

  static Vector2 pointFrameForce(const Vector2& point, const Vector2& centre, double fn, double ft) {
    const Vector2 d = point - centre;
    const double len = d.norm();
    const Vector2 n = len > 0.0 ? Vector2(d / len) : Vector2(0.0, 1.0);
    return fn * n + ft * leftNormal(n);
  }

  ContactParameters p_;
  SegmentHistory current_[MaxSegments];      // D: read by Newton, written by the PNS only
  SegmentHistory startOfStep_[MaxSegments];  // D0: copy at the start of each step
  std::uint8_t decidedSwitches_[MaxSegments] = {};  // stick/slip switches of evaluateDecided this step
  bool anchorlessRenewing_ = false;                 // setAnchorlessRenewing
};

}  // namespace beltsim
