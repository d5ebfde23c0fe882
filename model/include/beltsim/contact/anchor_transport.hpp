// Bristle anchors carried with the material through a mesh that stands still (docs/model.md §4.12).
//
// On a material mesh a segment's history (its stick/slip state and its anchor x_stick, a
// coordinate fixed on the circle) belongs to the material of that segment. On the Eulerian mesh
// (docs/model.md §2.10) the segments stay where they are and the material flows through them, so
// the history of the material must flow too: once per step, before the step's Newton phase, each
// segment takes the state and anchor of the material that reaches it during the step. That
// material was a distance d = sigma_end - sigma_start (reference length) upstream. Semi-Lagrangian
// transport: with the segments' reference points at X_j = j l (l the segment's reference length,
// j counted along the belt over all elements), segment i reads the departure point X_i - d:
//   anchor = linear interpolation of the two samples around it (their wrapped difference, so
//            that a field that runs over the circle's period stays continuous);
//   state  = the state of the nearer sample.
// A sample without an anchor (StickSlip::kUndefined: the material there was not in contact) is
// not interpolated. If the nearer sample has one, the anchor is extrapolated from it along the
// line through it and its neighbour on the far side (so that the edge of a sticking band moves
// with the band instead of staying with the mesh); if the nearer sample has none, the segment is
// left undefined, so that material entering contact anchors where its post-Newton step finds it
// (§4.7).
// The contact flag (gap) and heldByElement belong to the segment's place and stay.
// Interpolating instead of shifting by whole segments keeps a segment-passing ripple out: a
// uniformly sticking belt (anchors linear in X) is carried exactly, whatever d.
//
// Real-time rules: fixed size, no heap; the loop over the samples is bounded by Count and every
// departure point is found by index arithmetic (|d| is less than one segment per step in any
// configuration: 1.2 mm at 12 m/s and 0.1 ms; larger shifts are refused).
#pragma once
#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

// One sample of the transported field: what the material at a segment carries.
struct MaterialAnchor {
  StickSlip state = StickSlip::kUndefined;
  double stickingPosition = 0.0;  // m, on the circle (unwrapped)
};

// Transports `count` samples (count <= Count) of a closed belt by the distance `shift` (reference
// length, positive in the direction of increasing X) with sample spacing `spacing` (reference
// length); `period` is the circle's wrap period 2 pi r (<= 0: no wrap). kInvalidParameter for a
// count out of range, a spacing <= 0 or |shift| >= spacing; then `out` is `in`.
template <int Count>
Status transportAnchors(const MaterialAnchor (&in)[Count], int count, double spacing, double shift, double period,
                        MaterialAnchor (&out)[Count]) {
  for (int i = 0; i < Count; ++i) out[i] = in[i];
  if (count < 2 || count > Count) return Status::kInvalidParameter;
  if (!isFinite(spacing) || !(spacing > 0.0) || !isFinite(shift)) return Status::kInvalidParameter;
  const double fraction = shift / spacing;  // of one spacing, in (-1, 1)
  if (!(fraction > -1.0 && fraction < 1.0)) return Status::kInvalidParameter;
  if (fraction == 0.0) return Status::kOk;
  // Departure point of sample i: between sample i - 1 and i (shift > 0) or i and i + 1 (shift < 0),
  // at the share w of the way from the first of the two to the second.
  const bool downstream = fraction > 0.0;
  const double w = downstream ? 1.0 - fraction : -fraction;
  for (int i = 0; i < count; ++i) {
    const int first = downstream ? (i == 0 ? count - 1 : i - 1) : i;
    const int second = downstream ? i : (i + 1 == count ? 0 : i + 1);
    const MaterialAnchor& a = in[first];
    const MaterialAnchor& b = in[second];
    const bool aKnown = a.state != StickSlip::kUndefined, bKnown = b.state != StickSlip::kUndefined;
    const MaterialAnchor& nearer = w < 0.5 ? a : b;
    MaterialAnchor m;
    m.state = nearer.state;
    m.stickingPosition = nearer.stickingPosition;
    if (aKnown && bKnown) {
      m.stickingPosition =
          a.stickingPosition + w * wrappedDifference(b.stickingPosition - a.stickingPosition, period);
    } else if (nearer.state != StickSlip::kUndefined) {
      // Extrapolate from the known sample along the line through its far neighbour: the departure
      // point lies w (from a) or 1 - w (back from b) spacings beyond it.
      const int far = aKnown ? (first == 0 ? count - 1 : first - 1) : (second + 1 == count ? 0 : second + 1);
      const MaterialAnchor& n = in[far];
      if (n.state != StickSlip::kUndefined) {
        const double slope = wrappedDifference(nearer.stickingPosition - n.stickingPosition, period);
        m.stickingPosition = nearer.stickingPosition + (aKnown ? w : 1.0 - w) * slope;
      }
    }
    out[i] = m;
  }
  return Status::kOk;
}

}  // namespace beltsim
