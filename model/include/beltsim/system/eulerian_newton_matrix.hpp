// The Newton matrix of the drive on the eulerian mesh (EulerianBeltDrive, docs/model_element.md
// §2.11) in the order of its block solver, the two storages it lives in (double_buffered.hpp) and
// the rows it keeps: the storage that solves and, for the fixed-cost stepping
// (fixed_cost_stepper.hpp), the one a refresh assembles and eliminates a slice of elements per
// step while the first one keeps solving.
//
// Coordinates of the system: the layout (drive_layout.hpp: node k's 4 ANCF coordinates at 4 k,
// k = 0..NE, node NE unused on the closed belt; each circle's (x, y, phi)), then the nodes'
// material coordinates p_0 .. p_{NE-1} (m of reference length). Solver order: a chain block of 5
// per node 1..NE-1 (q 4, p_i); the border node 0 (q 4, p_0), then the circles.
//
// Rows it keeps: node i's x row is its velocity row along its start tangent t (beginAssembly sets
// it), its y row the normal force n.(r_x, r_y) = -t_y r_x + t_x r_y; a replaced row (a prescribed
// pulley unknown, p_0 in the static solve) keeps only the diagonal beginAssembly gives it. The
// drive's physics gives the entries of its rows as it computes them (addEntry), and every entry is
// mapped at once, so that a chain block is complete as soon as its elements are in.
//
// Contact pairs each storage holds: every element wraps at most one circle, and each storage keeps
// the 13 x 13 block of that pair as it went in and the pair's Jacobian signature then (the
// contact flag and stick/slip state of each segment, circle_cable_contact.hpp). The fixed-cost
// stepping's update between its post-Newton passes (fixed_cost_stepper.hpp) replaces the blocks
// of the pairs whose signature changed in the storage that solves: it adds the new block less the
// one held, then eliminates the chain again from the first block touched.
#pragma once
#include <cstdint>

#include "beltsim/solver/bordered_block_tridiagonal.hpp"
#include "beltsim/solver/double_buffered.hpp"
#include "beltsim/system/prescribed_rows.hpp"  // and the layout, the drive's mode

namespace beltsim {

// What each storage holds of the contact pairs: element e's pair block as it went in (if any) and
// its signature then.
template <int NE>
struct EulerianPairRecord {
  Eigen::Matrix<double, 13, 13> block[NE];  // (q 8, the pulley's x, y, phi, p_A, p_B)
  bool in[NE] = {};
  PairSignatures<NE, 1> signature;
};

template <int NE, int NP>
class EulerianNewtonMatrix
    : public DoubleBuffered<BorderedBlockTridiagonal<NE - 1, 5, 5 + 3 * NP>, EulerianPairRecord<NE>> {
  using Layout = DriveLayout<NE, NP>;

 public:
  static constexpr int kSize = Layout::kSize + NE;  // the layout's unknowns, then p_0 .. p_{NE-1}
  static constexpr int kBorder = 5 + 3 * NP;        // node 0 with p_0, the circles
  static constexpr int kSolverSize = 5 * (NE - 1) + kBorder;
  using Solver = BorderedBlockTridiagonal<NE - 1, 5, kBorder>;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using SolverVector = Eigen::Matrix<double, kSolverSize, 1>;
  using Vector2 = Eigen::Matrix<double, 2, 1>;
  using Tangents = Vector2[NE];  // every node's start tangent (unit), the drive's

  // System coordinate -> solver index; -1 for the unused slots of node NE. Chain: nodes 1..NE-1
  // as (q 4, p); border: node 0 as (q 4, p_0), then the circles.
  static int solverIndex(int dof) {
    const int border = 5 * (NE - 1);
    if (dof < 4) return border + dof;
    if (dof < 4 * NE) return 5 * (dof / 4 - 1) + dof % 4;
    if (dof < 4 * (NE + 1)) return -1;
    if (dof < Layout::kSize) return border + 5 + (dof - 4 * (NE + 1));
    const int node = dof - Layout::kSize;
    return node == 0 ? border + 4 : 5 * (node - 1) + 4;
  }

  // Reference stepping: whether its factorization leaves the replaced rows' unknowns out of the
  // elimination (IntegratorSettings::compactBorder; the same matrix in fewer operations).
  void setCompactBorder(bool compact) { compactBorder_ = compact; }

  // ---- a whole build in the storage that solves (reference stepping, static solve) ------------
  // beginBuild, the entries (addEntry), then factorize.
  void beginBuild(const PrescribedRows<NE, NP>& rows, const Tangents& tangent) {
    this->buildInSolving();
    beginAssembly(rows, tangent, compactBorder_);
  }
  // solveScale: the stiffness factor c_q the solve scales the residual by.
  Status factorize(double solveScale) {
    this->setSolveScale(solveScale);
    return this->solving().factorize();
  }

  // ---- the fixed-cost stepping's refresh in the other storage ----------------------------------
  // beginRefresh; per step buildAside, a slice of elements' entries, eliminateCompleteBlocks; at
  // the end buildAside, the pulleys' entries, finishRefresh. Its factorization leaves
  // the replaced rows' unknowns out of the elimination (the compact border,
  // bordered_block_tridiagonal.hpp).
  void beginRefresh(const PrescribedRows<NE, NP>& rows, const Tangents& tangent) {
    this->buildAside();
    beginAssembly(rows, tangent, true);
    this->aside().beginFactorization(false);
    eliminated_ = 0;
  }
  // Eliminates the chain blocks complete once elements [0, last) are in: block k is node k + 1,
  // complete once elements k and k + 1 are in.
  Status eliminateCompleteBlocks(int last) {
    const int complete = last - 1 < (NE - 1) ? last - 1 : (NE - 1);
    if (complete <= eliminated_) return Status::kOk;
    const Status s = this->aside().factorizeBlocks(eliminated_, complete);
    eliminated_ = complete;
    return s;
  }
  bool refreshEliminated() const { return eliminated_ == (NE - 1); }
  // Completes the refresh's factorization (its pulleys' entries in) and makes it the one that
  // solves; solveScale as factorize's.
  Status finishRefresh(double solveScale) {
    const Status s = this->aside().finishFactorization();
    if (s == Status::kOk) this->makeAsideSolving(solveScale);
    return s;
  }

  // ---- the contact pairs' blocks ---------------------------------------------------------------
  using PairBlock = Eigen::Matrix<double, 13, 13>;  // (q 8, the pulley's x, y, phi, p_A, p_B)
  // Element e's pair went into the storage being built with this block (nullptr: none, the pair
  // touched nothing) and this signature.
  void recordPair(int e, const PairBlock* block, std::uint64_t signature) {
    EulerianPairRecord<NE>& record = this->buildingRecord();
    record.signature.of[e][0] = signature;
    record.in[e] = block != nullptr;
    if (block != nullptr) record.block[e] = *block;
  }
  // What the storage that solves holds of element e's pair.
  std::uint64_t solvingSignature(int e) const { return this->solvingRecord().signature.of[e][0]; }
  const PairBlock* solvingBlock(int e) const {
    return this->solvingRecord().in[e] ? &this->solvingRecord().block[e] : nullptr;
  }
  // Eliminates the storage that solves again from chain block `first` on (its corner complete).
  Status refactorizeFrom(int first) { return this->solving().refactorizeFrom(first, true); }

  // ---- entries and the solve -------------------------------------------------------------------
  // An entry of the Newton matrix in system coordinates as the assembled rows take it, into the
  // storage being built: node i's rows become its normal row (in r_y's place; its velocity row is
  // beginAssembly's), a replaced row drops it.
  void addEntry(int row, int col, double value, const Tangents& tangent) {
    const int sc = solverIndex(col);
    if (sc < 0) return;
    if (row < 4 * NE && row % 4 < 2) {
      const Vector2& t = tangent[row / 4];
      this->building().add(solverIndex(row - row % 4 + 1), sc, row % 4 == 0 ? -t(1) * value : t(0) * value);
      return;
    }
    const int sr = solverIndex(row);
    if (sr >= 0 && !replacedRow_[row]) this->building().add(sr, sc, value);
  }

  // An entry of node i's velocity row (beginAssembly's m t) in column col: a moving station's
  // -m g_i by a centre (EulerianBeltDrive).
  void addVelocityRowEntry(int node, int col, double value) {
    const int sc = solverIndex(col);
    if (sc >= 0) this->building().add(solverIndex(4 * node), sc, value);
  }

  // delta = A^-1 (c_q r) with the storage that solves; 0 at the unused slots of node NE.
  Status solve(const Vector& r, Vector& delta) const {
    SolverVector rhs, x;
    for (int dof = 0; dof < kSize; ++dof) {
      const int s = solverIndex(dof);
      if (s >= 0) rhs(s) = this->solveScale() * r(dof);
    }
    const Status st = this->solving().solve(rhs, x);
    for (int dof = 0; dof < kSize; ++dof) {
      const int s = solverIndex(dof);
      delta(dof) = s >= 0 ? x(s) : 0.0;
    }
    return st;
  }

 private:
  // Starts an assembly into the storage being built: all zero but for the replaced rows'
  // diagonals (rows.rowScale, kg or kg m^2) and the nodes' velocity rows (m t, kg); `compact`:
  // the replaced rows' border unknowns left out of the elimination.
  void beginAssembly(const PrescribedRows<NE, NP>& rows, const Tangents& tangent, bool compact) {
    Solver& matrix = this->building();
    matrix.setZero();
    for (int dof = 0; dof < kSize; ++dof) replacedRow_[dof] = false;
    for (int dof = 4 * (NE + 1); dof < Layout::kSize; ++dof) {
      if (!rows.prescribed(dof)) continue;
      replacedRow_[dof] = true;
      matrix.add(solverIndex(dof), solverIndex(dof), rows.rowScale(dof));
    }
    for (int i = 0; i < NE; ++i) {
      matrix.add(solverIndex(4 * i), solverIndex(4 * i), rows.lumpedNodeMass * tangent[i](0));
      matrix.add(solverIndex(4 * i), solverIndex(4 * i + 1), rows.lumpedNodeMass * tangent[i](1));
    }
    if (rows.mode == DriveMode::kStatic) {  // p_0 held at its lock
      const int p0 = Layout::kSize;
      replacedRow_[p0] = true;
      matrix.add(solverIndex(p0), solverIndex(p0), rows.lumpedNodeMass);
    }
    std::uint32_t inactive = 0;
    for (int dof = 0; dof < kSize && compact; ++dof)
      if (replacedRow_[dof]) inactive |= std::uint32_t{1} << (solverIndex(dof) - 5 * (NE - 1));
    matrix.setInactiveBorder(inactive);
  }

  int eliminated_ = 0;            // chain blocks the refresh has eliminated
  bool replacedRow_[kSize] = {};  // rows that keep only their diagonal in the assembly
  bool compactBorder_ = false;
};

}  // namespace beltsim
