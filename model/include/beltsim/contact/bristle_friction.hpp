// Tangential contact law of one segment: the bristle model with history variables of paper [P]
// Sect. 2.5 (docs/model_contact.md §4.5-4.7), and, selectable, the continuous friction law of [B] eq. (10).
// All forces are LHS quantities (docs/model_element.md §0.2): the physical force on the belt is -f_t t.
#pragma once
#include <cstdint>

#include "beltsim/core/detmath.hpp"

namespace beltsim {

// Stick/slip state of a segment (docs/model_contact.md §4.1 s^D).
enum class StickSlip : std::int8_t {
  kUndefined = -2,  // no anchor yet (no contact, or contact not yet evaluated by a PNS)
  kSlipNegative = -1,
  kStick = 0,
  kSlipPositive = 1,
};

inline int slipSign(StickSlip s) { return static_cast<int>(s); }  // -1, 0, +1 (or -2)
inline bool isSlipping(StickSlip s) { return s == StickSlip::kSlipNegative || s == StickSlip::kSlipPositive; }

// History variables of one segment (docs/model_contact.md §4.1). Initial gap 0.1 (not 0: a zero gap would flag
// every segment as in contact for the first Newton solve, docs/model_differences.md §10.15).
struct SegmentHistory {
  double gap = 0.1;                          // m, gap found by the last PNS; <= 0 means "in contact"
  StickSlip state = StickSlip::kUndefined;   // stick/slip state
  bool heldByElement = false;                // kWholeElement: in contact since its element lay wholly on the circle
  double stickingPosition = 0.0;             // m, bristle anchor x_stick (unwrapped)
};

enum class TangentialLaw : std::uint8_t {
  kBristle,     // paper [P] eqs. 22-30: velocity penalty + bristle spring, Coulomb limit via the PNS
  kContinuous,  // [B] eq. 10: f_t = mu |f_n| sgn(v_t) (1 - exp(-|v_t| / v0))
};

// Which sticking positions a segment keeps from step to step (bristle law).
//   kSegment: the paper's rule. A segment anchors where its first post-Newton step finds it in
//     contact and keeps that anchor while it stays in contact and sticks.
//   kWholeElement: a sticking segment keeps its anchor only once its element has lain wholly on the
//     circle (every segment in contact at the start of a step) and while it has stayed in contact
//     since (SegmentHistory::heldByElement). Before that (the element still bending onto the
//     circle) each post-Newton step anchors it afresh where it finds it; an element leaving the
//     circle at the end of a wrap, where the slip arc is, keeps its anchors. A slipping segment
//     keeps its anchor at the Coulomb force, as under kSegment. A coarse cubic element cannot bend
//     onto a circle without its segments sliding on it; with the paper's rule the bristles remember
//     those slides for the whole wrap, which unloads the wrapped belt and raises both span forces
//     (about 2 N at 24 elements on the paper's drive, 0.1 N at 240).
enum class StickMemory : std::uint8_t { kSegment = 0, kWholeElement = 1 };

struct FrictionParameters {
  double frictionCoefficient = 0.0;  // mu, Coulomb coefficient
  double bristleStiffness = 0.0;     // mu_k, N/m per segment
  double velocityPenalty = 0.0;      // mu_v, N s/m per segment
  TangentialLaw law = TangentialLaw::kBristle;
  double characteristicVelocity = 1e-3;  // v0, m/s (continuous law only)
  StickMemory stickMemory = StickMemory::kSegment;
};

inline double signOf(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }
inline double absOf(double x) { return x < 0 ? -x : x; }

// Wrap of anchor differences: period 2 pi r on a circle; a period <= 0 means no wrapping (a
// straight support, as in the paper's 1D experiment).
inline double wrappedDifference(double difference, double period) {
  return period > 0 ? detmath::wrapDifference(difference, period) : difference;
}

// Newton phase (docs/model_contact.md §4.6): the state is frozen; nothing switches. normalForce is f_n (LHS),
// tangentialVelocity v_t, stickingCoordinate the current x_cur of the segment.
inline double newtonTangentialForce(const FrictionParameters& p, const SegmentHistory& current,
                                    double normalForce, double tangentialVelocity,
                                    double stickingCoordinate, double wrapPeriod) {
  if (p.law == TangentialLaw::kContinuous) {
    const double speed = absOf(tangentialVelocity);
    return p.frictionCoefficient * absOf(normalForce) * signOf(tangentialVelocity) *
           (1.0 - detmath::exp(-speed / p.characteristicVelocity));
  }
  double force = p.velocityPenalty * tangentialVelocity;
  if (current.state == StickSlip::kStick && p.bristleStiffness != 0.0) {
    force += p.bristleStiffness *
             wrappedDifference(stickingCoordinate - current.stickingPosition, wrapPeriod);
  }
  if (isSlipping(current.state)) {
    force = p.frictionCoefficient * absOf(normalForce) * slipSign(current.state);
  }
  return force;
}

// Result of the tangential part of the post-Newton step for one segment in contact.
struct TangentialPnsResult {
  StickSlip state;
  double stickingPosition;
  double error;  // e_t contribution (N): |excess| if the state changed, else 0
};

// Post-Newton step for a segment with g <= 0 (docs/model_contact.md §4.7). `current` is D (compared for the
// error), `startOfStep` is D0 (anchor and "undefined" test are read from it, never from D, so
// the anchor cannot drift over repeated PNS iterations, docs/model_differences.md §10.18).
inline TangentialPnsResult pnsTangential(const FrictionParameters& p, const SegmentHistory& current,
                                         const SegmentHistory& startOfStep, double normalForce,
                                         double tangentialVelocity, double stickingCoordinate,
                                         double wrapPeriod) {
  if (p.law == TangentialLaw::kContinuous) {
    // A continuous law has nothing to switch; the state is informational (slip above v0).
    const StickSlip s = absOf(tangentialVelocity) > p.characteristicVelocity
                            ? (tangentialVelocity > 0 ? StickSlip::kSlipPositive : StickSlip::kSlipNegative)
                            : StickSlip::kStick;
    return TangentialPnsResult{s, stickingCoordinate, 0.0};
  }
  double linearForce = p.velocityPenalty * tangentialVelocity;
  double anchor = startOfStep.stickingPosition;
  double xc = anchor;
  double delta = tangentialVelocity;  // sign source when mu_k == 0 (docs/model_contact.md §4.11 row 10)
  if (p.bristleStiffness != 0.0) {
    xc = stickingCoordinate;
    if (startOfStep.state == StickSlip::kUndefined) anchor = xc;  // first contact: anchor here
    delta = wrappedDifference(xc - anchor, wrapPeriod);
    linearForce += p.bristleStiffness * delta;
  }
  const double maximumForce = p.frictionCoefficient * absOf(normalForce);
  const double excess = absOf(linearForce) - maximumForce;
  TangentialPnsResult result{StickSlip::kStick, anchor, 0.0};
  if (excess > 0) {
    // Slip in the direction of the bristle's deflection (the paper's rule). A segment without a
    // deflection, anchored in this very pass (a new contact, or a renewed anchor under
    // StickMemory::kWholeElement), slips in the direction of its force, the velocity penalty: the
    // paper takes sgn(0) = 0 and keeps it sticking for the step whatever the force (docs/model_differences.md §10.19),
    // so a renewed anchor never slipped and a belt sliding over a pulley carried more than the
    // capstan law allows. The new anchor pre-tensions the spring to exactly the
    // Coulomb force, so a later stick starts from the slip force without a jump.
    const double direction = delta != 0.0 ? signOf(delta) : signOf(linearForce);
    // A segment slipping one way that the trial force sends the other way has passed through
    // zero relative speed within the step, where the bristle holds: it sticks at its start-of-step
    // anchor for this pass, and the next pass slips it the other way if the stick force is beyond
    // mu |f_n| still. Flipping straight to the opposite slip skips the stick solution; when the
    // friction impulse of one step can stop the sliding (a friction drop under load, a speed
    // jump, steps of 1 ms) the passes then alternate between the two slip directions and never
    // settle (docs/model_contact.md §4.7, docs/model_differences.md §10.19).
    if (isSlipping(current.state) && direction == -static_cast<double>(slipSign(current.state))) {
      result.error = absOf(excess);
      return result;
    }
    result.state = static_cast<StickSlip>(static_cast<int>(direction));
    result.stickingPosition = xc;
    if (p.bristleStiffness != 0.0) result.stickingPosition = xc - direction * maximumForce / p.bristleStiffness;
  }
  if (current.state != result.state) result.error = absOf(excess);
  return result;
}

}  // namespace beltsim
