// The belt drive's Newton matrix in the order of its block solver (docs/model_drive_and_solver.md §7.11), and the two
// storages it lives in (double_buffered.hpp): the one that solves and, for the fixed-cost stepper,
// the one a refresh assembles and factorizes over several steps while the first keeps solving.
//
// Coordinates of the system (BeltDrive): node k's 4 ANCF coordinates at 4 k (k = 0..NE; node NE
// is the unused end of a closed belt), then each circle's (x, y, phi). Solver order: the chain
// blocks are nodes 1..NE, the border is [node 0 (4), circles (3 NP)], so that a closed belt's
// wrap-around couples only chain and border (BorderedBlockTridiagonal). Assembly adds into the
// storage being built (building(): the one that solves, or a refresh's); what the topology puts
// outside the band is never produced. Each storage's record is the pairs' signatures it holds.
#pragma once
#include <Eigen/Core>

#include "beltsim/solver/bordered_block_tridiagonal.hpp"
#include "beltsim/solver/double_buffered.hpp"

namespace beltsim {

template <int NE, int NP>
class BeltNewtonMatrix
    : public DoubleBuffered<BorderedBlockTridiagonal<NE, 4, 4 + 3 * NP>, PairSignatures<NE, NP>> {
 public:
  static constexpr int kNodes = NE + 1;
  static constexpr int kPulleyDofs = 3;
  static constexpr int kBorder = 4 + kPulleyDofs * NP;
  static constexpr int kSize = 4 * kNodes + kPulleyDofs * NP;
  using Solver = BorderedBlockTridiagonal<NE, 4, kBorder>;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;

  // ---- storages: the one that solves and a refresh's (DoubleBuffered, its vocabulary) -----------
  // ---- ordering ------------------------------------------------------------------------------
  static int solverIndex(int dof) {
    if (dof < 4) return NE * 4 + dof;      // node 0 -> border 0..3
    if (dof < 4 * kNodes) return dof - 4;  // node k>=1 -> chain block k-1
    return NE * 4 + 4 + (dof - 4 * kNodes);  // circles -> border 4..
  }
  // The first chain block that holds a coordinate of element e (node e, or node e + 1 when node
  // e = 0 sits in the border): a column of the element's coordinates is zero before it.
  static int firstChainBlock(int e) { return e >= 1 ? e - 1 : 0; }

  static void toSolverOrder(const Vector& x, Vector& out) {
    for (int i = 0; i < kSize; ++i) out(solverIndex(i)) = x(i);
  }
  static void fromSolverOrder(const Vector& x, Vector& out) {
    for (int i = 0; i < kSize; ++i) out(i) = x(solverIndex(i));
  }

  // ---- assembly into building() ----------------------------------------------------------------
  // An assembly into building() starts with beginAssembly(first), which zeroes the entries from
  // chain block `first` on and the corner; an update that keeps the chain
  // blocks before `first` as they are (their entries and their elimination:
  // BorderedBlockTridiagonal::refactorizeFrom) assembles only into the rest: every add below skips
  // the entries of chain block k < first (its diagonal, lower, upper, column border, and the border
  // rows over its columns); the corner is always assembled. The adds that remain come in the order
  // of a whole assembly, so every entry gets its bits. 0: a whole assembly. finishAssembly() ends
  // the skipping (a later add, such as a switch's change, reaches every block again).
  void beginAssembly(int first = 0) {
    this->building().setZeroFrom(first);
    kept_ = first;
  }
  void finishAssembly() { kept_ = 0; }

  // Adds value at (row dof, column dof).
  void addEntry(int row, int col, double value) {
    const int sr = solverIndex(row), sc = solverIndex(col);
    const int border = NE * 4;
    if (sr >= border) {
      if (sc >= border) {
        this->building().corner()(sr - border, sc - border) += value;
      } else if (sc / 4 >= kept_) {
        this->building().rowBorder(sc / 4)(sr - border, sc % 4) += value;
      }
      return;
    }
    if (sr / 4 < kept_) return;
    if (sc >= border) {
      this->building().columnBorder(sr / 4)(sr % 4, sc - border) += value;
      return;
    }
    const int br = sr / 4, bc = sc / 4;
    if (bc == br) {
      this->building().diagonal(br)(sr % 4, sc % 4) += value;
    } else if (bc == br + 1) {
      this->building().upper(br)(sr % 4, sc % 4) += value;
    } else if (bc == br - 1) {
      this->building().lower(br)(sr % 4, sc % 4) += value;
    }
  }

  // Column-major 4 x 4 block of a source with the given stride added at (rowNode, colNode).
  void addNodeBlock(int rowNode, int colNode, const double* values, int sourceStride) {
    int stride = 0;
    double* block = nodeBlock(rowNode, colNode, stride);
    if (block == nullptr) return;
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) block[j * stride + i] += values[j * sourceStride + i];
  }

  // An element's 8 x 8 Newton matrix between its nodes a and b.
  void addElementMatrix(int a, int b, const Matrix8& m) {
    addNodeBlock(a, a, &m(0, 0), 8);
    addNodeBlock(a, b, &m(0, 4), 8);
    addNodeBlock(b, a, &m(4, 0), 8);
    addNodeBlock(b, b, &m(4, 4), 8);
  }

  // A contact pair's 11 x 11 Newton matrix over [node a, node b, circle p].
  void addPairMatrix(int a, int b, int p, const Matrix11& m) {
    const int nodes[2] = {a, b};
    const int circleBorder = 4 + kPulleyDofs * p;  // border index of circle p's first unknown
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) addNodeBlock(nodes[r], nodes[c], &m(4 * r, 4 * c), 11);
    for (int r = 0; r < 2; ++r) {
      const int node = nodes[r];
      for (int l = 0; l < 3; ++l)
        for (int i = 0; i < 4; ++i) {
          // Node rows x circle columns, circle rows x node columns.
          if (node == 0) {
            this->building().corner()(i, circleBorder + l) += m(4 * r + i, 8 + l);
            this->building().corner()(circleBorder + l, i) += m(8 + l, 4 * r + i);
          } else if (node - 1 >= kept_) {
            this->building().columnBorder(node - 1)(i, circleBorder + l) += m(4 * r + i, 8 + l);
            this->building().rowBorder(node - 1)(circleBorder + l, i) += m(8 + l, 4 * r + i);
          }
        }
    }
    for (int l = 0; l < 3; ++l)
      for (int k = 0; k < 3; ++k) this->building().corner()(circleBorder + k, circleBorder + l) += m(8 + k, 8 + l);
  }

  // Zeroes row dof (a prescribed coordinate's row before its own entry is set); the entries of
  // kept chain blocks are left as they are (they hold the cleared row already).
  void clearRow(int dof) {
    const int sr = solverIndex(dof);
    const int border = NE * 4;
    if (sr >= border) {
      this->building().corner().row(sr - border).setZero();
      for (int k = kept_; k < NE; ++k) this->building().rowBorder(k).row(sr - border).setZero();
      return;
    }
    const int b = sr / 4, l = sr % 4;
    if (b < kept_) return;
    this->building().diagonal(b).row(l).setZero();
    this->building().lower(b).row(l).setZero();
    this->building().upper(b).row(l).setZero();
    this->building().columnBorder(b).row(l).setZero();
  }

 private:
  // The 4 x 4 block of (rowNode, colNode) in building(), or null outside the band or in a kept
  // chain block (beginAssembly).
  double* nodeBlock(int rowNode, int colNode, int& stride) {
    if (rowNode == 0) {
      stride = kBorder;
      if (colNode == 0) return this->building().corner().data();
      return colNode - 1 >= kept_ ? this->building().rowBorder(colNode - 1).data() : nullptr;
    }
    if (rowNode - 1 < kept_) return nullptr;
    stride = 4;
    if (colNode == 0) return this->building().columnBorder(rowNode - 1).data();
    const int br = rowNode - 1, bc = colNode - 1;
    if (bc == br) return this->building().diagonal(br).data();
    if (bc == br + 1) return this->building().upper(br).data();
    if (bc == br - 1) return this->building().lower(br).data();
    return nullptr;
  }

  int kept_ = 0;  // chain blocks the running assembly skips (beginAssembly)
};

// Newton-matrix blocks of the last build: each element's 8 x 8 and each pair's 11 x 11, with the
// signature of the states each pair block was evaluated in.
template <int NE, int NP>
struct NewtonBlocks {
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;
  Matrix8 element[NE];
  Matrix11 pair[NE][NP];
  PairSignatures<NE, NP> pairSignature;
};

// What the drive's two builders (reference_newton_matrix.hpp, kept_newton_matrix.hpp) build into:
// the two storages and the blocks of the last build. The drive owns it and passes it to each call.
template <int NE, int NP>
struct NewtonStorage {
  BeltNewtonMatrix<NE, NP> matrix;
  NewtonBlocks<NE, NP> blocks;
};

}  // namespace beltsim
