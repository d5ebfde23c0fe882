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

  void clear() {
    for (auto& row : contactCoordinate_)
      for (double& c : row) c = 0.0;
  }

  // Where element e's post-Newton step with circle p writes the contact coordinate x_c (on the
  // circle) of the material at each of its segments in contact, for the transport's entry rule
  // (ContactPair::postNewtonStep's contactCoordinate, NCS entries).
  double* contactCoordinates(int e, int p) { return &contactCoordinate_[p][e * NCS]; }

  // At a step's start: every pair of the circles in use takes the state and anchor of the material
  // that reaches its segments (samples at the segments' starts, `pitch` to the next, `travel` the
  // distance the material came, both in mesh length), then D0 := D. Returns false if a transport
  // was refused (a whole pitch or a non-finite travel); that circle's histories then stay.
  bool carry(Pair (&pairs)[NE][NP], int pulleyCount, int segments, const double (&pitch)[kSamples],
             const double (&travel)[kSamples]) {
    bool carried = true;
    for (int p = 0; p < pulleyCount; ++p) {
      MaterialAnchor in[kSamples], out[kSamples];
      for (int e = 0; e < NE; ++e)
        for (int i = 0; i < segments; ++i) {
          const SegmentHistory& h = pairs[e][p].history(i);
          in[e * segments + i] = MaterialAnchor{h.state, h.stickingPosition, contactCoordinate_[p][e * NCS + i], h.gap};
        }
      const double period = 2.0 * 3.14159265358979323846 * pairs[0][p].parameters().radius;
      const bool refused = transportAnchors(in, NE * segments, pitch, travel, period, out) != Status::kOk;
      carried = carried && !refused;
      if (!refused) {
        for (int e = 0; e < NE; ++e)
          for (int i = 0; i < segments; ++i) {
            SegmentHistory h = pairs[e][p].history(i);
            h.state = out[e * segments + i].state;
            h.stickingPosition = out[e * segments + i].stickingPosition;
            pairs[e][p].setHistory(i, h);
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
};

}  // namespace beltsim
