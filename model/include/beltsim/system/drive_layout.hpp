// Where each unknown of a belt drive sits in its state vector (docs/model_drive_and_solver.md §7.11).
//
// Node k of the cable has [x, y, x', y'] (k = 0..NE; a closed belt uses nodes 0..NE-1 and keeps
// node NE as an unused, fixed block); circle p has [x, y, phi] after the nodes. The solver's
// order (border first, then the chain) is belt_newton_matrix.hpp's.
#pragma once
#include <Eigen/Core>

namespace beltsim {

template <int NE, int NP>
struct DriveLayout {
  static constexpr int kNodes = NE + 1;
  static constexpr int kPulleyDofs = 3;
  static constexpr int kBorder = 4 + kPulleyDofs * NP;  // node 0 and the circles
  static constexpr int kSize = 4 * kNodes + kPulleyDofs * NP;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using Vector8 = Eigen::Matrix<double, 8, 1>;

  static constexpr int nodeDof(int node, int local) { return 4 * node + local; }
  static constexpr int pulleyDof(int p, int local) { return 4 * kNodes + kPulleyDofs * p + local; }
  // The system coordinate of border unknown b of the solver: node 0, then the circles.
  static constexpr int borderDof(int b) { return b < 4 ? b : 4 * kNodes + (b - 4); }
  // The circle a coordinate belongs to (-1: a node's).
  static constexpr int pulleyOf(int dof) { return dof >= 4 * kNodes ? (dof - 4 * kNodes) / kPulleyDofs : -1; }
  static constexpr int pulleyLocal(int dof) { return (dof - 4 * kNodes) % kPulleyDofs; }

  // The 8 coordinates of element e, whose second node is `next` (node 0 for the last element of
  // a closed belt).
  static Vector8 gather(const Vector& x, int e, int next) {
    Vector8 out;
    const double* a = x.data() + 4 * e;
    const double* b = x.data() + 4 * next;
    for (int i = 0; i < 4; ++i) {
      out(i) = a[i];
      out(4 + i) = b[i];
    }
    return out;
  }
  static void scatter(const Vector8& re, int e, int next, Vector& r) {
    r.template segment<4>(4 * e) += re.template head<4>();
    r.template segment<4>(4 * next) += re.template tail<4>();
  }
};

}  // namespace beltsim
