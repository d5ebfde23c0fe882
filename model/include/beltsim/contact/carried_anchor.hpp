// The anchors of an eulerian mesh's segments as functions of the mesh speed within a step
// (docs/model_contact.md §4.12): the implicit half of the transport of anchor_transport.hpp.
//
// At a step's start each segment takes the anchor of the material that reaches it, found at the
// departure point X - w0 h for the mesh speed w0 of the step that ended. Within the step the
// material moves at the mesh speed w of the iterate, so the anchor the bristle pulls from is that
// of X - w h:
//   x_stick(w) = x_stick(w0) + (d x_stick / d travel) h (w - w0),
// exact while the departure point stays between the same two samples (the transport interpolates
// linearly). The pair sees it as a shift of its sticking coordinate x_cur,
//   shift = perSpeed (w - w0),  perSpeed = -(d x_stick / d travel) h   [m per m/s],
// with w the segment start's mesh speed, linear between the element's two nodes. Carried with the
// last step's w0 alone (explicit), the anchor lags the material by (w - w0) h: a stiff bristle
// then sets a step limit near k_b b h^2 / (rho A) = 10 (docs/host_simulator.md).
// Real-time rules: fixed size, no heap.
#pragma once

namespace beltsim {

template <int MaxSegments>
struct CarriedAnchor {
  double perSpeed[MaxSegments] = {};   // m per (m/s): the shift's slope in the segment's mesh speed
  double speedUsed[MaxSegments] = {};  // m/s: w0, the mesh speed the step's start transport used
  double meshSpeed[2] = {};            // m/s: w at the element's two nodes, at the point being evaluated
  bool active = false;                 // false (a material mesh, a fresh history): no shift at all

  // x_cur as the bristle of segment i (of `segments`) sees it: shifted only when active, so that
  // a mesh without transport keeps its bits.
  double seen(int i, int segments, double stickingCoordinate) const {
    return active ? stickingCoordinate + shift(i, segments) : stickingCoordinate;
  }
  double shift(int i, int segments) const {
    const double x = static_cast<double>(i) / segments;  // the segment's start, of the element
    return perSpeed[i] * ((1.0 - x) * meshSpeed[0] + x * meshSpeed[1] - speedUsed[i]);
  }
  // d shift / d w at the element's node n (0 or 1).
  double shiftPerNodeSpeed(int i, int segments, int n) const {
    const double x = static_cast<double>(i) / segments;
    return perSpeed[i] * (n == 0 ? 1.0 - x : x);
  }
};

}  // namespace beltsim
