// Bristle anchors carried with the material through an eulerian mesh (docs/model_contact.md §4.12).
//
// On a material mesh a segment's history (its stick/slip state and its anchor x_stick, a
// coordinate fixed on the circle) belongs to the material of that segment. On the Eulerian mesh
// (docs/model_element.md §2.10) the segments stay where they are and the material flows through them, so
// the history of the material must flow too: once per step, before the step's Newton phase, each
// segment takes the state and anchor of the material that reaches it during the step. That
// material was a distance d = sigma_end - sigma_start (reference length) upstream. Semi-Lagrangian
// transport: with the segments' reference points at X_j = j l (l the segment's reference length,
// j counted along the belt over all elements), segment i reads the departure point X_i - d:
//   anchor = linear interpolation of the two samples around it (their wrapped difference, so
//            that a field that runs over the circle's period stays continuous);
//   state  = the state of the nearer sample;
//   x_c    = the material's contact coordinate, carried like the anchor (a drive overwrites it
//            with its own at the step's end).
// A sample without an anchor (StickSlip::kUndefined: the material there was not in contact) has
// no deflection. Where the departure point lies between such a sample upstream and a sample in
// contact (a contact's entry), the contact starts where the two samples' gaps, interpolated
// linearly, cross zero; the material at the departure point is undeflected if it lies upstream of
// that point, else its deflection is the known sample's, scaled by how far it has come into
// contact. Material entering contact thus arrives with the deflection it builds over the distance
// it has been in contact, not with the deflection of the material ahead of it (which would let a
// sticking zone hold a tension change at a contact's entry and take the creep away,
// docs/model_contact.md §4.12). At a band's trailing edge (the departure point nearer a sample in contact
// downstream of one without, for shifts over half a spacing) the anchor is extrapolated along the
// band; where the nearer sample has no anchor, the segment is left undefined, so that material
// entering contact anchors where its post-Newton step finds it (§4.7).
// The contact flag (gap) and heldByElement belong to the segment's place and stay.
// Interpolating instead of shifting by whole segments keeps a segment-passing ripple out: a
// uniformly sticking belt (anchors linear in X) is carried exactly, whatever d.
//
// Real-time rules: fixed size, no heap; the loop over the samples is bounded by Count, and each
// departure point is found by walking upstream over at most Count pitches (a material that came
// round the whole belt or further in one step is refused).
#pragma once
#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

// One sample of the transported field: what the material at a segment carries.
struct MaterialAnchor {
  StickSlip state = StickSlip::kUndefined;
  double stickingPosition = 0.0;   // anchor x_stick, m, on the circle (unwrapped)
  double contactCoordinate = 0.0;  // x_c of the material at the sample, m (read where state is known)
  double gap = 0.0;                // the segment's gap at the sample, m (> 0: no contact)
};

// Transports `count` samples (count <= Count) of a closed belt by the distance `shift` (reference
// length, positive in the direction of increasing X) with sample spacing `spacing` (reference
// length); `period` is the circle's wrap period 2 pi r (<= 0: no wrap). kInvalidParameter for a
// count out of range, a spacing <= 0 or |shift| of count spacings or more; then `out` is `in`.
template <int Count>
Status transportAnchors(const MaterialAnchor (&in)[Count], int count, double spacing, double shift, double period,
                        MaterialAnchor (&out)[Count]) {
  double pitch[Count], travel[Count];
  for (int i = 0; i < Count; ++i) {
    pitch[i] = spacing;
    travel[i] = shift;
  }
  return transportAnchors(in, count, pitch, travel, period, out);
}

// The same on samples spaced unevenly, with a travel of its own for every sample (the eulerian belt,
// docs/model_element.md §2.11: graded elements, and material that crosses the mesh at a speed varying along
// the belt). `pitch[i]` is the distance (mesh length) from sample i to sample i + 1 (the last to
// the first), `travel[i]` the distance the material now at sample i has come in the step (positive
// in the direction of increasing i), less than the belt's length (the sum of the pitches); it may
// cross several samples. Extrapolations along a band
// (its entry's contact coordinate, its trailing edge) scale the neighbours' difference by the
// ratio of the pitches. A sample whose travel is 0 keeps its own history.
// anchorPerTravel (optional, Count entries): d out[i].stickingPosition / d travel[i], the slope the
// anchor would move by if the material had come a little further (carried_anchor.hpp); a travel of
// 0 takes the slope of the material upstream in the increasing direction.
template <int Count>
Status transportAnchors(const MaterialAnchor (&in)[Count], int count, const double (&pitch)[Count],
                        const double (&travel)[Count], double period, MaterialAnchor (&out)[Count],
                        double* anchorPerTravel = nullptr) {
  double slopes[Count];
  double* perTravel = anchorPerTravel != nullptr ? anchorPerTravel : slopes;
  for (int i = 0; i < Count; ++i) {
    out[i] = in[i];
    perTravel[i] = 0.0;
  }
  if (count < 2 || count > Count) return Status::kInvalidParameter;
  for (int i = 0; i < count; ++i)
    if (!isFinite(pitch[i]) || !(pitch[i] > 0.0) || !isFinite(travel[i])) return Status::kInvalidParameter;
  double belt = 0.0;
  for (int i = 0; i < count; ++i) belt += pitch[i];
  for (int i = 0; i < count; ++i)
    if (!(travel[i] > -belt && travel[i] < belt)) return Status::kInvalidParameter;
  for (int i = 0; i < count; ++i) {
    if (travel[i] == 0.0) {
      const int before = i == 0 ? count - 1 : i - 1;
      if (in[i].state != StickSlip::kUndefined && in[before].state != StickSlip::kUndefined)
        perTravel[i] = -wrappedDifference(in[i].stickingPosition - in[before].stickingPosition, period) / pitch[before];
      continue;
    }
    // Departure point of sample i: between two neighbouring samples `first` and `second` (in
    // increasing order), upstream of i (below it for travel > 0, above it for travel < 0), at the
    // share w of the way from the first to the second; crossedPitch is their pitch. Within one
    // pitch of i: between i - 1 and i, or i and i + 1.
    const bool downstream = travel[i] > 0.0;
    int first = i, second = i;
    double w = 0.0, crossedPitch = pitch[i];
    double left = downstream ? travel[i] : -travel[i];  // distance still to walk upstream
    for (int k = 0; k < count; ++k) {
      if (downstream) {
        first = second == 0 ? count - 1 : second - 1;
        crossedPitch = pitch[first];
        if (left < crossedPitch) {
          w = 1.0 - left / crossedPitch;
          break;
        }
        second = first;
      } else {
        second = first + 1 == count ? 0 : first + 1;
        crossedPitch = pitch[first];
        if (left < crossedPitch) {
          w = left / crossedPitch;
          break;
        }
        first = second;
      }
      left -= crossedPitch;
    }
    const MaterialAnchor& a = in[first];
    const MaterialAnchor& b = in[second];
    const bool aKnown = a.state != StickSlip::kUndefined, bKnown = b.state != StickSlip::kUndefined;
    const MaterialAnchor& nearer = w < 0.5 ? a : b;
    MaterialAnchor m = nearer;
    const int far = aKnown ? (first == 0 ? count - 1 : first - 1) : (second + 1 == count ? 0 : second + 1);
    const MaterialAnchor& n = in[far];
    const bool farKnown = n.state != StickSlip::kUndefined;
    // The sample without an anchor is the upstream one when the material flows from a to b
    // (shift > 0) or from b to a (shift < 0).
    const bool entry = downstream ? (!aKnown && bKnown) : (aKnown && !bKnown);
    // d w / d travel = -1 / crossedPitch in both directions.
    if (aKnown && bKnown) {
      const double across = wrappedDifference(b.stickingPosition - a.stickingPosition, period);
      m.stickingPosition = a.stickingPosition + w * across;
      perTravel[i] = -across / crossedPitch;
      m.contactCoordinate =
          a.contactCoordinate + w * wrappedDifference(b.contactCoordinate - a.contactCoordinate, period);
    } else if (entry && nearer.state != StickSlip::kUndefined) {
      // Contact's entry, between the fresh sample u upstream and the known sample k: the contact
      // starts where the gaps, interpolated linearly, cross zero, at the share t0 of the way from
      // u to k. The material at the departure point (share s) is undeflected if it has not reached
      // that point, else deflected by k's deflection times (s - t0) / (1 - t0). Its contact
      // coordinate is extrapolated from k and the known sample beyond it.
      const MaterialAnchor& k = aKnown ? a : b;
      const MaterialAnchor& u = aKnown ? b : a;
      const double kn = aKnown ? pitch[far] : pitch[second];  // the pitch between k and its far neighbour
      const double step =
          farKnown ? wrappedDifference(k.contactCoordinate - n.contactCoordinate, period) * (pitch[first] / kn) : 0.0;
      const double fresh = k.contactCoordinate + step;
      const double share = aKnown ? 1.0 - w : w;  // of the way from u to k
      const double gapU = u.gap > 0.0 ? u.gap : 0.0, gapK = k.gap < 0.0 ? k.gap : 0.0;
      const double start = gapU - gapK > 0.0 ? gapU / (gapU - gapK) : 0.0;  // t0 in [0, 1]
      const double deflection = wrappedDifference(k.contactCoordinate - k.stickingPosition, period);
      const double reached = share > start && start < 1.0 ? (share - start) / (1.0 - start) : 0.0;
      m.contactCoordinate = fresh - share * step;
      m.stickingPosition = m.contactCoordinate - reached * deflection;
      // The implicit half moves the contact coordinate only: the share of the deflection the
      // entering material brings is taken at the step's start (its slope, 1 / (1 - t0), grows
      // without bound as the contact's start nears the known sample).
      perTravel[i] = -step * (aKnown ? 1.0 : -1.0) / crossedPitch;
    } else if (nearer.state != StickSlip::kUndefined && farKnown) {
      // Trailing edge: extrapolate from the known sample along the line through its far
      // neighbour: the departure point lies w (from a) or 1 - w (back from b) spacings beyond it.
      const double ratio = pitch[first] / (aKnown ? pitch[far] : pitch[second]);
      const double beyond = (aKnown ? w : 1.0 - w) * ratio;
      const double along = wrappedDifference(nearer.stickingPosition - n.stickingPosition, period);
      m.stickingPosition = nearer.stickingPosition + beyond * along;
      perTravel[i] = (aKnown ? -1.0 : 1.0) * ratio * along / crossedPitch;
      m.contactCoordinate = nearer.contactCoordinate +
                            beyond * wrappedDifference(nearer.contactCoordinate - n.contactCoordinate, period);
    }
    out[i] = m;
  }
  return Status::kOk;
}

}  // namespace beltsim
