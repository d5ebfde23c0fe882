// Stations of an eulerian mesh that move with the layout: where each node of the mesh lies on the
// path around circles whose centres move (a tensioner arm swinging, a pulley on its support
// springs), and how that place changes with the centres. Each part of the path (a span, or the
// wrap on a circle) keeps the elements it was given when the mesh was laid out
// (eulerian_stations.hpp) and each element its share of its part's length; only the part lengths
// and the node positions move. The derivatives (the part lengths' second ones too) are closed-form:
//
//   span k from circle a to circle b (signed radii rho = side R, centres c, d = c_b - c_a):
//     length l = (|d|^2 - (rho_b - rho_a)^2)^(1/2), direction angle psi with unit tangent t and
//     left normal n; departure c_a + rho_a n, arrival c_b + rho_b n;
//     d psi / d c_b = n / l = -d psi / d c_a,   d l / d c_b = d / l = -d l / d c_a;
//     by d twice: d2 l = (I - d d^T / l^2) / l,
//                 d2 psi = -(t n^T + n t^T) / l^2 + (rho_b - rho_a) n n^T / l^3;
//     d t / d psi = n,  d n / d psi = -t;
//   wrap on circle b between span k and span k + 1 (sweep s, negative clockwise): arc length
//     R |s|, d(R |s|) = side_b R (d psi_k - d psi_(k+1)); a point at fraction F of the wrap lies at
//     c_b + R e(theta), theta = theta_arrival + F s, d theta = (1 - F) d psi_k + F d psi_(k+1).
//
// A node at fraction F of a span lies at the departure + F l t. The eulerian drive
// (eulerian_belt_drive.hpp, docs/model_moving_stations.md) moves its nodes and stretches its elements
// with these stations.
#pragma once

#include "beltsim/core/detmath.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/system/belt_geometry.hpp"

namespace beltsim {

template <int NE, int MaxPulleys>
class MovingStations {
 public:
  using Mat2 = Eigen::Matrix<double, 2, 2>;
  static constexpr int kMaxParts = 2 * MaxPulleys;
  // A part's geometry depends on at most three circles: span k on circles k and k + 1, the wrap
  // after it on circles k, k + 1 and k + 2 (mod the count; with two circles the third is the first).
  static constexpr int kPartCircles = 3;

  // The drawn path and how eulerianStations divided it: elementsInPart[j] elements in part j (span
  // k = j / 2 for even j, the wrap on circle k + 1 for odd j), element e of length length[e].
  ParameterError setUp(const BeltPath<MaxPulleys>& drawn, const int (&elementsInPart)[kMaxParts],
                       const double (&length)[NE]) {
    count_ = drawn.pulleyCount;
    if (count_ < 2 || count_ > MaxPulleys) return ParameterError::invalid("pulleyCount");
    path_ = drawn;
    int e = 0;
    for (int j = 0; j < 2 * count_; ++j) {
      const int first = e;
      double sum = 0.0;
      for (int k = 0; k < elementsInPart[j]; ++k, ++e) {
        if (e >= NE) return ParameterError::invalid("belt.elements");
        part_[e] = j;
        sum += length[e];
      }
      if (!(sum > 0.0)) return ParameterError::invalid(j % 2 == 1 ? "wrap" : "span");
      drawnPartLength_[j] = sum;
      double before = 0.0;
      for (int k = first; k < e; ++k) {
        fraction_[k] = length[k] / sum;
        nodeFraction_[k] = before / sum;
        before += length[k];
      }
    }
    if (e != NE) return ParameterError::invalid("belt.elements");
    Vector2 centre[MaxPulleys];
    for (int p = 0; p < MaxPulleys; ++p) centre[p] = drawn.circle[p].centre;
    return evaluate(centre) == Status::kOk ? ParameterError::success() : ParameterError::invalid("centre");
  }

  // The stations for circles at centre[p] (p < the circle count; radii and sides as drawn).
  // kDegenerateState if a span can no longer be tangent to both its circles or a part has no length.
  Status evaluate(const Vector2 (&centre)[MaxPulleys]) {
    PathCircle circles[MaxPulleys];
    // Radii and sides as drawn (a refused path below leaves them in path_ as they were).
    for (int p = 0; p < count_; ++p) circles[p] = PathCircle{centre[p], path_.circle[p].radius, path_.circle[p].side};
    if (!buildBeltPath(circles, count_, path_).ok()) return Status::kDegenerateState;
    // Per span: tangent, left normal, and the derivatives of its angle and length by its circles.
    Vector2 tangent[MaxPulleys], normal[MaxPulleys], angleBy[MaxPulleys], lengthBy[MaxPulleys];
    Mat2 angleByTwice[MaxPulleys], lengthByTwice[MaxPulleys];  // by d = c_(k+1) - c_k twice
    for (int k = 0; k < count_; ++k) {
      const double l = path_.spanLength[k];
      if (!(l > 0.0)) return Status::kDegenerateState;
      tangent[k] = (path_.arrival[k] - path_.departure[k]) / l;
      normal[k] = leftNormal(tangent[k]);
      angleBy[k] = normal[k] / l;                                        // d psi / d c_(k+1)
      const Vector2 between = path_.circle[(k + 1) % count_].centre - path_.circle[k].centre;
      lengthBy[k] = between / l;  // d l / d c_(k+1)
      const double jump = path_.circle[(k + 1) % count_].side * path_.circle[(k + 1) % count_].radius -
                          path_.circle[k].side * path_.circle[k].radius;
      lengthByTwice[k] = (Mat2::Identity() - between * between.transpose() / (l * l)) / l;
      angleByTwice[k] = -(tangent[k] * normal[k].transpose() + normal[k] * tangent[k].transpose()) / (l * l) +
                        (jump / (l * l * l)) * (normal[k] * normal[k].transpose());
    }
    for (int j = 0; j < 2 * count_; ++j) {
      const int k = j / 2;
      for (int c = 0; c < kPartCircles; ++c) {
        partLengthBy_[j][c].setZero();
        for (int r = 0; r < kPartCircles; ++r) partLengthByTwice_[j][c][r].setZero();
      }
      // A function of d = c_(first + 1) - c_first, twice differentiated to h, into slots first, first + 1.
      auto addOfDifference = [&](int first, const Mat2& h) {
        partLengthByTwice_[j][first][first] += h;
        partLengthByTwice_[j][first][first + 1] -= h;
        partLengthByTwice_[j][first + 1][first] -= h;
        partLengthByTwice_[j][first + 1][first + 1] += h;
      };
      if (j % 2 == 0) {
        partLength_[j] = path_.spanLength[k];
        partLengthBy_[j][0] = -lengthBy[k];
        partLengthBy_[j][1] = lengthBy[k];
        addOfDifference(0, lengthByTwice[k]);
      } else {
        const int b = (k + 1) % count_;  // the wrap's circle, where the leaving span b starts
        const double R = path_.circle[b].radius, side = path_.circle[b].side;
        partLength_[j] = R * std::fabs(path_.arcSweep[b]);
        // side R (d psi_k - d psi_(k+1)); psi_k on circles k, k+1; psi_(k+1) on circles k+1, k+2.
        partLengthBy_[j][0] = -side * R * angleBy[k];
        partLengthBy_[j][1] = side * R * (angleBy[k] + angleBy[b]);
        partLengthBy_[j][2] = -side * R * angleBy[b];
        addOfDifference(0, (side * R) * angleByTwice[k]);
        addOfDifference(1, (-side * R) * angleByTwice[b]);
      }
      if (!(partLength_[j] > 0.0)) return Status::kDegenerateState;
    }
    for (int i = 0; i < NE; ++i) {
      const int j = part_[i], k = j / 2;
      const double F = nodeFraction_[i];
      Mat2* by = positionBy_[i];
      for (int c = 0; c < kPartCircles; ++c) by[c].setZero();
      if (j % 2 == 0) {
        // P = c_a + rho_a n + F l t.
        const double rhoA = path_.circle[k].side * path_.circle[k].radius, l = path_.spanLength[k];
        position_[i] = path_.departure[k] + (F * l) * tangent[k];
        const Vector2 byAngle = -rhoA * tangent[k] + (F * l) * normal[k];  // dP / d psi
        const Vector2 byLength = F * tangent[k];                            // dP / d l
        const Mat2 atB = byAngle * angleBy[k].transpose() + byLength * lengthBy[k].transpose();
        by[0] = Mat2::Identity() - atB;
        by[1] = atB;
      } else {
        const int b = (k + 1) % count_;  // the wrap's circle, where the leaving span b starts
        const double R = path_.circle[b].radius;
        const double theta = path_.arcStartAngle[b] + F * path_.arcSweep[b];
        const Vector2 radial(detmath::cos(theta), detmath::sin(theta));
        position_[i] = path_.circle[b].centre + R * radial;
        const Vector2 byTheta = R * leftNormal(radial);
        // d theta = (1 - F) d psi_k + F d psi_(k+1).
        by[0] = byTheta * (-(1.0 - F) * angleBy[k]).transpose();
        by[1] = Mat2::Identity() + byTheta * ((1.0 - F) * angleBy[k] - F * angleBy[b]).transpose();
        by[2] = byTheta * (F * angleBy[b]).transpose();
      }
    }
    return Status::kOk;
  }

  int pulleyCount() const { return count_; }
  // The circle behind slot c (0..2) of part j's derivatives.
  int partCircle(int part, int c) const { return (part / 2 + c) % count_; }
  int partOf(int element) const { return part_[element]; }

  // Node i's position on the path (node i starts element i).
  const Vector2& position(int node) const { return position_[node]; }
  // d position(node) / d centre of circle p.
  Mat2 positionByCentre(int node, int p) const {
    Mat2 sum = Mat2::Zero();
    for (int c = 0; c < kPartCircles; ++c)
      if (partCircle(part_[node], c) == p) sum += positionBy_[node][c];
    return sum;
  }
  double partLength(int part) const { return partLength_[part]; }
  // d partLength(part) / d centre of circle p.
  Vector2 partLengthByCentre(int part, int p) const {
    Vector2 sum = Vector2::Zero();
    for (int c = 0; c < kPartCircles; ++c)
      if (partCircle(part, c) == p) sum += partLengthBy_[part][c];
    return sum;
  }
  // d2 partLength(part) / d centre of circle p d centre of circle r (row: p's x, y).
  Mat2 partLengthByCentres(int part, int p, int r) const {
    Mat2 sum = Mat2::Zero();
    for (int a = 0; a < kPartCircles; ++a)
      for (int b = 0; b < kPartCircles; ++b)
        if (partCircle(part, a) == p && partCircle(part, b) == r) sum += partLengthByTwice_[part][a][b];
    return sum;
  }
  // The part's length over its drawn length (kappa).
  double stretch(int part) const { return partLength_[part] / drawnPartLength_[part]; }
  double drawnPartLength(int part) const { return drawnPartLength_[part]; }
  int partCount() const { return 2 * count_; }
  double elementLength(int element) const { return fraction_[element] * partLength_[part_[element]]; }
  const BeltPath<MaxPulleys>& path() const { return path_; }

 private:
  int count_ = 0;
  BeltPath<MaxPulleys> path_;
  int part_[NE] = {};
  double fraction_[NE] = {};      // element e's share of its part's length
  double nodeFraction_[NE] = {};  // node i's distance from its part's start, in the part's length
  double drawnPartLength_[kMaxParts] = {};
  double partLength_[kMaxParts] = {};
  Vector2 partLengthBy_[kMaxParts][kPartCircles];
  Mat2 partLengthByTwice_[kMaxParts][kPartCircles][kPartCircles];
  Vector2 position_[NE];
  Mat2 positionBy_[NE][kPartCircles];
};

}  // namespace beltsim
