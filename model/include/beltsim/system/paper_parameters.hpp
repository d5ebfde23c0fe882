// The paper's belt and its contact values as the authors ran them (docs/model_start_and_benchmark.md §9.1-9.2; paper [P]
// Table 2-3 with the corrections of docs/model_differences.md §10.1-10.3), and the conversion of per-area contact
// values to the per-segment values the contact pair uses.
#pragma once
#include <cmath>

#include "beltsim/system/belt_drive.hpp"

namespace beltsim {

// Belt of the paper: rho A = 0.8288 kg/m (stiffness height 0.01 m, docs/model_differences.md §10.1), EA = 8000 N,
// EI = 1.333e-3 N m^2, pre-stretch -0.05 (400 N), d_eps = 1 N s, gravity, axial rule c,
// thickness 1e-4 m (geometry and contact offset only), width 0.08 m.
inline BeltParameters paperBelt() {
  BeltParameters belt;
  belt.element.massPerLength = 0.8288;
  belt.element.EA = 8000.0;
  belt.element.EI = 0.02 * 1e7 * 0.08 * 1e-6 / 12.0;
  belt.element.referenceAxialStrain = -0.05;
  belt.element.axialDamping = 1.0;
  belt.element.gravity = Vector2(0.0, -9.81);
  belt.element.axialRule = AxialRule::kC;
  belt.thickness = 1e-4;
  belt.width = 0.08;
  return belt;
}

// Contact values per unit contact area, as the paper's scripts give them.
struct ContactPerArea {
  double stiffness = 4e9;          // k_c, N/m^3
  double damping = 8e4;            // d_c, N s/m^3
  double bristleStiffness = 5e9;   // mu_k, N/m^3
  // mu_v per segment = 2 zeta sqrt(mu_k,seg m_seg); zeta = 1/sqrt(2) is what the data used.
  double velocityPenaltyDampingRatio = 0.7071067811865476;
  // mu_v given directly per unit area, N s/m^3 (per segment: times b L / n_cs, like mu_k); a
  // negative value (the default) means: from the damping ratio above.
  double velocityPenalty = -1.0;
  double frictionCoefficient = 0.5;
  // Segment geometry (circle_cable_contact.hpp): the paper's chord gap, or the gap to the
  // arc through the segment's ends. The struct's default is the paper's; scenarios default to arc.
  SegmentGapMeasure gapMeasure = SegmentGapMeasure::kChord;
  // Measure the gaps to r plus the penetration under the belt's pre-tension (-EA eps_ref), so
  // that the loaded belt's path has the length of a belt on r whatever the contact stiffness.
  bool penetrationCompensation = false;
  // Bristle anchors (bristle_friction.hpp): the paper's per segment, or kept only from
  // the step the segment's whole element lies on the circle until the segment leaves it.
  StickMemory stickMemory = StickMemory::kSegment;
};

// Per-segment values (docs/model_start_and_benchmark.md §9.1): c_F = b L / n_cs is the reference area of one segment and
// m_seg = rho A L / n_cs its mass.
inline ContactParameters contactFromPerArea(const ContactPerArea& a, const BeltParameters& belt,
                                            double elementLength, int segments) {
  const double area = belt.width * elementLength / segments;
  const double segmentMass = belt.element.massPerLength * elementLength / segments;
  ContactParameters c;
  c.segmentCount = segments;
  c.contactStiffness = a.stiffness * area;
  c.contactDamping = a.damping * area;
  c.friction.frictionCoefficient = a.frictionCoefficient;
  c.friction.stickMemory = a.stickMemory;
  c.gapMeasure = a.gapMeasure;
  const double preTension = -belt.element.EA * belt.element.referenceAxialStrain;
  c.compensatedTension = a.penetrationCompensation && preTension > 0.0 ? preTension : 0.0;
  c.friction.bristleStiffness = a.bristleStiffness * area;
  c.friction.velocityPenalty = a.velocityPenalty >= 0.0
                                   ? a.velocityPenalty * area
                                   : 2.0 * a.velocityPenaltyDampingRatio * std::sqrt(c.friction.bristleStiffness * segmentMass);
  return c;
}

}  // namespace beltsim
