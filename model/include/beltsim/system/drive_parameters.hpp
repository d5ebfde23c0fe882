// What a belt drive is made of, as its set-up takes it: the belt (closed or an open cable, its
// element, thickness and width), each pulley (PulleyParameters: how it is driven or supported,
// its inertia and loads) and the per-step commands (BeltDriveInput). validatePulleyParameters
// checks one pulley's values before the drive stores any of them (docs/model_drive_and_solver.md §6).
//
// Words: a pulley (roll, guide, idler) is what the drive, the plant, the scenario files and the
// outputs name; the contact model (contact/) meets its contact surface as a circle, as the paper
// does, so the contact pairs and their geometry say circle.
#pragma once
#include <cstdint>

#include "beltsim/contact/contact_parameters.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/profiles.hpp"
#include "beltsim/system/tensioner_arm.hpp"

namespace beltsim {

enum class PulleyKind : std::uint8_t {
  kFixedAxis,     // rotation free: inertia, viscous damper, applied torque (profile + command)
  kSpeedDriven,   // angular velocity prescribed (profile, or command); reaction = drive torque
  kTorqueDriven,  // motor inertia included in `inertia`; torque = profile + command
  kFloating,      // planar rigid body on spring-dampers to its rest position; rotation free
  kFixed,         // does not move at all (a fixed guide or a blocked pulley): x, y, phi prescribed
  kTensionerArm,  // centre on a pivoting arm with a torsional spring (tensioner_arm.hpp); rotation free
};

// A centre that moves: its x and y are unknowns of the drive.
constexpr bool movingCentre(PulleyKind kind) {
  return kind == PulleyKind::kFloating || kind == PulleyKind::kTensionerArm;
}

struct PulleyParameters {
  PulleyKind kind = PulleyKind::kFixedAxis;
  Vector2 centre = Vector2::Zero();  // rest position of the centre, m
  double radius = 0.0;               // contact radius r, m (the belt centreline runs at r + h/2)
  int side = 1;                      // +1: wrapped clockwise by the belt (belt runs around it)
  double inertia = 0.0;              // J about the axis, kg m^2 (motor included if torque-driven)
  double rotationalDamping = 0.0;    // d, N m s/rad: LHS + d omega
  RampProfile torque;                // applied physical torque (positive counter-clockwise), N m
  RampProfile speed;                 // prescribed omega for kSpeedDriven, rad/s
  // Fastest change of a commanded speed, rad/s^2, when the pulley runs speed-driven under the
  // plant's commands (BeltDrivePlant): the motor's speed loop reaches a new command at this
  // acceleration instead of at once. 0: at once (a jump of the command is a jump of omega).
  double maxAcceleration = 0.0;
  double mass = 0.0;                 // kg (kFloating, kTensionerArm)
  double supportStiffness = 0.0;     // N/m, each direction (kFloating only)
  double supportDamping = 0.0;       // N s/m, each direction (kFloating only)
  Vector2 force = Vector2::Zero();   // applied force on the centre, N (kFloating only; scaled by
                                     // the load factor in the static solve, like gravity)
  TensionerArm arm;                  // kTensionerArm only (mass: the pulley's, on the arm's tip)
};

enum class CableEnd : std::uint8_t { kFree, kPinned, kClamped };

struct BeltParameters {
  bool closed = true;               // closed belt around the circles, or an open cable
  AncfCable2DParameters<double> element;  // element.length is set by the geometry
  double thickness = 1e-4;          // h_b, m: geometry (centreline at r + h/2) and contact offset
  double width = 0.08;              // b, m: contact stresses
  CableEnd startEnd = CableEnd::kFree;   // open cable only
  CableEnd finishEnd = CableEnd::kFree;  // open cable only
};

// Per-step input of the plant: command values per circle (used where `useCommand` is set: speed
// for kSpeedDriven, torque added to the profile otherwise).
template <int NP>
struct BeltDriveInput {
  double command[NP] = {};
  bool useCommand[NP] = {};
};

namespace detail {
inline bool nonNegative(double x) { return isFinite(x) && x >= 0.0; }
inline bool positive(double x) { return isFinite(x) && x > 0.0; }

inline ParameterError validateTensionerArm(const PulleyParameters& c) {
  const TensionerArm& arm = c.arm;
  if (!nonNegative(c.mass)) return ParameterError::invalid("circle.mass");
  if (!(isFinite(arm.pivot(0)) && isFinite(arm.pivot(1)))) return ParameterError::invalid("arm.pivot");
  if (!((c.centre - arm.pivot).norm() > 0.0)) return ParameterError::invalid("arm.length");
  if (!nonNegative(arm.inertia)) return ParameterError::invalid("arm.inertia");
  if (!nonNegative(arm.stiffness)) return ParameterError::invalid("arm.stiffness");
  if (!isFinite(arm.preloadAngle)) return ParameterError::invalid("arm.preload_angle");
  if (!nonNegative(arm.damping)) return ParameterError::invalid("arm.damping");
  for (double tf : arm.frictionTorque)
    if (!nonNegative(tf)) return ParameterError::invalid("arm.friction_torque");
  if (!positive(arm.frictionStiffness)) return ParameterError::invalid("arm.friction_stiffness");
  if (!nonNegative(arm.frictionDampingRatio)) return ParameterError::invalid("arm.friction_damping_ratio");
  if (!positive(arm.radialStiffness)) return ParameterError::invalid("arm.radial_stiffness");
  if (!nonNegative(arm.radialDampingRatio)) return ParameterError::invalid("arm.radial_damping_ratio");
  return ParameterError::success();
}
}  // namespace detail

// One pulley's values; the key of the first invalid one (the scenario reader maps it to its file key).
inline ParameterError validatePulleyParameters(const PulleyParameters& c) {
  if (!detail::positive(c.radius)) return ParameterError::invalid("circle.radius");
  if (!detail::positive(c.inertia)) return ParameterError::invalid("circle.inertia");
  if (!detail::nonNegative(c.rotationalDamping)) return ParameterError::invalid("circle.rotational_damping");
  if (!(isFinite(c.centre(0)) && isFinite(c.centre(1)))) return ParameterError::invalid("circle.centre");
  if (!(isFinite(c.force(0)) && isFinite(c.force(1)))) return ParameterError::invalid("circle.force");
  if (c.kind == PulleyKind::kFloating) {
    if (!detail::positive(c.mass)) return ParameterError::invalid("circle.mass");
    if (!detail::nonNegative(c.supportStiffness)) return ParameterError::invalid("circle.support_stiffness");
    if (!detail::nonNegative(c.supportDamping)) return ParameterError::invalid("circle.support_damping");
  }
  if (c.kind == PulleyKind::kTensionerArm) return detail::validateTensionerArm(c);
  return ParameterError::success();
}

// The belt's centreline on pulley `circle` (docs/model_contact.md §3): the belt touches a circle
// with its face on the circle's side (pairContact's offset below), so the centreline lies h_b / 2
// beyond the circle, r + h_b / 2 from its centre, for a front-side pulley and a back-side idler alike;
// `side` only says on which side of the travel direction the circle lies.
inline PathCircle beltPathCircle(const PulleyParameters& circle, const BeltParameters& belt) {
  return PathCircle{circle.centre, circle.radius + 0.5 * belt.thickness, circle.side};
}

// The contact parameters of the pairs between the belt and pulley `circle` (docs/model_contact.md §4.1,
// §4.11): the circle's radius, the belt surface's offset on the circle's side, the belt's width,
// the tension allowance (per circle: the penetration depends on its radius) and the arc sag.
inline ContactParameters pairContact(const ContactParameters& contact, const PulleyParameters& circle,
                                     const BeltParameters& belt, double elementLength) {
  ContactParameters cp = contact;
  cp.radius = circle.radius;
  cp.offset = -0.5 * belt.thickness * circle.side;  // the belt's surface on the circle's side
  cp.beltWidth = belt.width;
  if (cp.compensatedTension > 0.0)
    cp.radiusAllowance = penetrationUnderTension(cp, cp.compensatedTension, elementLength / contact.segmentCount);
  cp.elementSag = cp.gapMeasure == SegmentGapMeasure::kArc ? cubicArcSag(elementLength, contactSurfaceRadius(cp)) : 0.0;
  return cp;
}

}  // namespace beltsim
