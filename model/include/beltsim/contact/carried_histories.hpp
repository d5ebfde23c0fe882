// The contact histories of a belt whose mesh stands still, carried with its material (docs/model_contact.md
// §4.12, docs/model_element.md §2.11): what such a drive (system/eulerian_belt_drive.hpp) keeps between steps besides the
// pairs themselves, the contact coordinate x_c of the material at every segment in contact, and the
// step that hands each segment the state and anchor of the material reaching it
// (contact/anchor_transport.hpp).
// Real-time rules: fixed size, no heap, loops bounded by NE, NP, NCS.
#pragma once
#include "beltsim/contact/anchor_transport.hpp"
#include "beltsim/contact/circle_cable_contact.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class CarriedHistories {
 public:
  using Pair = ContactPair<NCS>;
  static constexpr int kSamples = NE * NCS;

  // No contact coordinate and no anchor carried within a step (a fresh start).
  void clear() {
    for (auto& row : contactCoordinate_)
      for (double& c : row) c = 0.0;
    for (auto& row : anchor_)
      for (CarriedAnchor<NCS>& a : row) a = CarriedAnchor<NCS>{};
  }

  // Pair (e, p)'s anchors carried within the step (carried_anchor.hpp; ContactPair::carryWith).
  const CarriedAnchor<NCS>* anchor(int e, int p) const { return &anchor_[e][p]; }
  // The mesh speeds at element e's nodes (m/s) at the point its pairs are evaluated at next.
  void setMeshSpeeds(int e, double nodeA, double nodeB) {
    for (int p = 0; p < NP; ++p) {
      anchor_[e][p].meshSpeed[0] = nodeA;
      anchor_[e][p].meshSpeed[1] = nodeB;
    }
  }

  // Where element e's post-Newton step with circle p writes the contact coordinate x_c (on the
  // circle) of the material at each of its segments in contact, for the transport's entry rule
  // (ContactPair::postNewtonStep's contactCoordinate, NCS entries).
  double* contactCoordinates(int e, int p) { return &contactCoordinate_[p][e * NCS]; }

  // At a step's start: every pair of the circles in use takes the state and anchor of the material
  // that reaches its segments (samples at the segments' starts, `pitch` to the next, `travel` the
  // distance the material came, both in mesh length, in the step of length `stepSize` s that
  // ended), then D0 := D. First each anchor the step that ended pulled from at the mesh speeds it
  // ended with (setMeshSpeeds; carried_anchor.hpp) is stored; then each segment carries its new anchor's slope in
  // the mesh speed, about travel / stepSize, for the step that begins (none for stepSize 0: the
  // static solve). Returns false if a transport was refused (a whole pitch or a non-finite
  // travel); that circle's histories then stay, without a slope.
  bool carry(Pair (&pairs)[NE][NP], int pulleyCount, int segments, const double (&pitch)[kSamples],
             const double (&travel)[kSamples], double stepSize) {
    bool carried = true;
    for (int p = 0; p < pulleyCount; ++p) {
      MaterialAnchor in[kSamples], out[kSamples];
      double perTravel[kSamples];
      for (int e = 0; e < NE; ++e)
        for (int i = 0; i < segments; ++i) {
          SegmentHistory h = pairs[e][p].history(i);
          if (h.state != StickSlip::kUndefined && anchor_[e][p].active) {
            h.stickingPosition -= anchor_[e][p].shift(i, segments);
            pairs[e][p].setHistory(i, h);
          }
          in[e * segments + i] = MaterialAnchor{h.state, h.stickingPosition, contactCoordinate_[p][e * NCS + i], h.gap};
        }
      const double period = 2.0 * 3.14159265358979323846 * pairs[0][p].parameters().radius;
      const bool refused = transportAnchors(in, NE * segments, pitch, travel, period, out, perTravel) != Status::kOk;
      carried = carried && !refused;
      for (int e = 0; e < NE; ++e) {
        CarriedAnchor<NCS>& a = anchor_[e][p];
        a.active = !refused && stepSize > 0.0;
        if (refused) continue;
        for (int i = 0; i < segments; ++i) {
          const int j = e * segments + i;
          SegmentHistory h = pairs[e][p].history(i);
          h.state = out[j].state;
          h.stickingPosition = out[j].stickingPosition;
          pairs[e][p].setHistory(i, h);
          a.perSpeed[i] = a.active ? -perTravel[j] * stepSize : 0.0;
          a.speedUsed[i] = a.active ? travel[j] / stepSize : 0.0;
        }
      }
      for (int e = 0; e < NE; ++e) pairs[e][p].beginStep();
    }
    return carried;
  }

  // x_c of sample j of circle p (tests).
  double contactCoordinate(int p, int j) const { return contactCoordinate_[p][j]; }

 private:
  double contactCoordinate_[NP][kSamples] = {};  // x_c at the last post-Newton step, m
  CarriedAnchor<NCS> anchor_[NE][NP];            // each pair's anchors carried within the step
};

}  // namespace beltsim
