// What a contact pair's evaluation gives (circle_cable_contact.hpp): its generalized forces, the
// segment kinematics a post-Newton step at the same state may take over, and the per-segment
// outputs (docs/model_contact.md §4.8, §4.10).
#pragma once
#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/contact/segment_geometry.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/element/segment_marker.hpp"

namespace beltsim {

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

// What a post-Newton step hands on besides the history, for an eulerian mesh
// (system/eulerian_belt_drive.hpp): x_cur of every frictional segment in contact (0 without
// bristles; the other entries stay), and the points and segment kinematics it computed, which a
// Newton-phase evaluation at the same state takes over (every segment known).
template <int MaxSegments>
struct PostNewtonKeep {
  double* contactCoordinate = nullptr;                // MaxSegments entries, or none
  PairKinematics<MaxSegments>* kinematics = nullptr;  // or none
};

// Per-segment outputs (docs/model_contact.md §4.10, with physical-unit stresses).
struct SegmentOutput {
  double gap = 0.0;               // m (current geometry)
  double normalForce = 0.0;       // f_n, N, LHS sign (< 0 in compression); 0 if not flagged
  double tangentialForce = 0.0;   // f_t, N, LHS sign; 0 if not flagged
  double normalStress = 0.0;      // f_n / (b L_seg), N/m^2
  double tangentialStress = 0.0;  // f_t / (b L_seg), N/m^2
  StickSlip state = StickSlip::kUndefined;
  double stickingDisplacement = 0.0;  // wrap(x_cur - x_stick) while sticking, else 0, m
};

}  // namespace beltsim
