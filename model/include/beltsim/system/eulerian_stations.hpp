// Where the nodes of an eulerian mesh sit on a closed belt's path (docs/model_element.md §2.11),
// decided from the layout alone: every point where the belt meets or leaves a pulley is a node, so
// that each element lies either in a span or on one pulley for the whole run; the wraps get
// `wrapDensity` times as many elements per metre as the spans, and inside a wrap the elements are
// finer toward both ends, where the sticking zones and the ends of the slip arcs sit.
//
// The path's parts, in order from its start (the departure of span 0 from circle 0): span 0, the
// wrap on circle 1, span 1, the wrap on circle 2, ..., the wrap on circle 0 (belt_geometry.hpp).
// Elements per part: at least 1 per span and 2 per wrap; the rest shared out by the largest
// remainder of NE times the part's weight (span: its length; wrap: wrapDensity times its arc
// length) over the sum of the weights, ties to the earlier part. Inside a wrap of n elements, the
// k-th (from 0) is of weight 1 + gradingStep min(k, n - 1 - k); inside a span all are equal.
#pragma once
#include <cmath>

#include "beltsim/core/status.hpp"
#include "beltsim/system/belt_geometry.hpp"

namespace beltsim {

struct MeshGrading {
  double wrapDensity = 3.0;  // elements per metre on a wrap over those on a span (docs/model_element.md §2.11)
  double gradingStep = 0.5;  // growth of a wrap element's length per element from the wrap's ends
};

// The stations of NE elements on `path`: station[i] is node i's distance along the path from its
// start (m, station[0] = 0), length[i] element i's mesh length (m), elementsInPart[j] the count of
// part j (2 per pulley, span first). Fails naming the parameter if NE is below the minimum (one per
// span, two per wrap), a grading setting is out of range or a wrap has no length.
template <int NE, int MaxPulleys>
ParameterError eulerianStations(const BeltPath<MaxPulleys>& path, const MeshGrading& grading, double (&station)[NE],
                                    double (&length)[NE], int (&elementsInPart)[2 * MaxPulleys]) {
  constexpr int kMaxParts = 2 * MaxPulleys;
  const int parts = 2 * path.pulleyCount;
  if (!(grading.wrapDensity > 0.0 && grading.wrapDensity <= 100.0)) return ParameterError::invalid("wrapDensity");
  if (!(grading.gradingStep >= 0.0 && grading.gradingStep <= 10.0)) return ParameterError::invalid("gradingStep");
  double partLength[kMaxParts] = {}, weight[kMaxParts] = {};
  int minimum[kMaxParts] = {};
  double weightSum = 0.0;
  int minimumSum = 0;
  for (int j = 0; j < kMaxParts; ++j) {
    elementsInPart[j] = 0;
    if (j >= parts) continue;
    const int k = j / 2;
    const bool wrap = j % 2 == 1;
    const int circle = (k + 1) % path.pulleyCount;
    partLength[j] = wrap ? path.circle[circle].radius * std::fabs(path.arcSweep[circle]) : path.spanLength[k];
    if (!(partLength[j] > 0.0)) return ParameterError::invalid(wrap ? "wrap" : "span");
    weight[j] = wrap ? grading.wrapDensity * partLength[j] : partLength[j];
    minimum[j] = wrap ? 2 : 1;
    weightSum += weight[j];
    minimumSum += minimum[j];
  }
  if (NE < minimumSum) return ParameterError::invalid("belt.elements");
  // The share above the minimum of each part, then the largest remainders.
  double above[kMaxParts] = {}, aboveSum = 0.0;
  for (int j = 0; j < parts && j < kMaxParts; ++j) {
    const double ideal = NE * weight[j] / weightSum;
    above[j] = ideal > minimum[j] ? ideal - minimum[j] : 0.0;
    aboveSum += above[j];
  }
  const int spare = NE - minimumSum;
  double remainder[kMaxParts] = {};
  int given = 0;
  for (int j = 0; j < parts && j < kMaxParts; ++j) {
    const double share = aboveSum > 0.0 ? spare * above[j] / aboveSum : 0.0;
    const int whole = static_cast<int>(std::floor(share));
    elementsInPart[j] = minimum[j] + whole;
    remainder[j] = share - whole;
    given += elementsInPart[j];
  }
  // The remainders are each below 1 and sum to NE - given, so one round per part gives them all.
  for (int round = 0; round < kMaxParts && given < NE; ++round) {
    int best = 0;
    for (int j = 1; j < parts && j < kMaxParts; ++j)
      if (remainder[j] > remainder[best]) best = j;
    ++elementsInPart[best];
    remainder[best] = -1.0;
    ++given;
  }
  if (given != NE) return ParameterError::invalid("belt.elements");  // not reached (see above)
  // Lengths inside each part, stations by accumulation.
  int e = 0;
  double s = 0.0;
  for (int j = 0; j < parts && j < kMaxParts; ++j) {
    const int n = elementsInPart[j];
    double sum = 0.0;
    for (int k = 0; k < n; ++k) sum += j % 2 == 1 ? 1.0 + grading.gradingStep * (k < n - 1 - k ? k : n - 1 - k) : 1.0;
    for (int k = 0; k < n && e < NE; ++k, ++e) {
      const double w = j % 2 == 1 ? 1.0 + grading.gradingStep * (k < n - 1 - k ? k : n - 1 - k) : 1.0;
      length[e] = partLength[j] * w / sum;
      station[e] = s;
      s += length[e];
    }
  }
  return ParameterError::success();
}

// Node coordinates [x, y, x', y'] at the stations: positions on the path, slopes its unit tangents
// (so the belt starts at the strain of its reference length, as placeBeltNodes does).
template <int NE, int MaxPulleys, typename NodeArray>
void placeAtStations(const BeltPath<MaxPulleys>& path, const double (&station)[NE], NodeArray& nodes) {
  for (int i = 0; i < NE; ++i) {
    Vector2 p = Vector2::Zero(), t = Vector2::Zero();
    path.pointAt(station[i], p, t);
    nodes(4 * i) = p(0);
    nodes(4 * i + 1) = p(1);
    nodes(4 * i + 2) = t(0);
    nodes(4 * i + 3) = t(1);
  }
}

// The start of an eulerian drive's static solve (as placeOnPath of static_equilibrium.hpp): its nodes at
// their stations on `path` with the material coordinates p_i = station[i] (no stretch), the circle
// centres at their rest positions, everything else 0.
template <typename Drive, int MaxPulleys>
void placeOnStations(const Drive& drive, const BeltPath<MaxPulleys>& path, const double (&station)[Drive::kElements],
                     typename Drive::Vector& x) {
  x.setZero();
  Eigen::Matrix<double, 4 * Drive::kElements, 1> nodes;
  placeAtStations(path, station, nodes);
  x.template head<4 * Drive::kElements>() = nodes;
  for (int i = 0; i < Drive::kElements; ++i) x(Drive::materialDof(i)) = station[i];
  for (int p = 0; p < Drive::kPulleys; ++p)
    for (int l = 0; l < 2; ++l) x(Drive::pulleyDof(p, l)) = drive.pulley(p).centre(l);
}

}  // namespace beltsim
