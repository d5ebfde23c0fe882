// The kept Newton matrix of the fixed-cost stepping (fixed_cost_stepper.hpp, docs/model_drive_and_solver.md
// §7.10): one factorized matrix used for many steps. It owns what says which contact states the
// matrix holds and how old its blocks are:
//   refresh        beginRefresh, refreshSlice, finishRefresh: the whole matrix rebuilt in the
//                  second storage, a slice of elements per step, then made the active one; an aged
//                  refresh (setBlockAge > 1) evaluates only some blocks again (selectPairRenewals);
//   switch columns updateSwitches, applySwitch: a segment's stick/slip or contact switch as an
//                  exact rank-one or rank-two correction of the active matrix (LowRankUpdates);
//   partial re-factorization
//                  refactorSwitchedPairs: the switched pairs evaluated again and the chain
//                  eliminated again from the first block they touch;
//   signatures     each pair's Jacobian signature (4 bits per segment: the contact flag and the
//                  stick/slip state, the segment's "state code") as each storage holds it (its
//                  record, double_buffered.hpp) and as each pair block was evaluated in.
// It reads the drive's pairs, elements and pulleys through the drive's public interface and builds
// into the storage passed to each call (NewtonStorage, belt_newton_matrix.hpp).
#pragma once
#include <cstdint>

#include "beltsim/contact/contact_jacobian.hpp"
#include "beltsim/solver/fixed_lu.hpp"
#include "beltsim/solver/low_rank_update.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/belt_newton_matrix.hpp"
#include "beltsim/system/drive_layout.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class KeptNewtonMatrix {
 public:
  static constexpr int kMaxLowRankColumns = 16;
  using Layout = DriveLayout<NE, NP>;
  using Vector = typename Layout::Vector;
  using Vector8 = typename Layout::Vector8;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;
  using Updates = LowRankUpdates<Layout::kSize, kMaxLowRankColumns, 11>;

  // true: only switches that stiffen the matrix (contact made, slip -> stick) are applied; a
  // softening switch leaves the stiffer state in the matrix until the refresh (safe, slower
  // convergence there); a new contact enters with the stick tangent.
  void setStiffenOnly(bool stiffen) { stiffenOnly_ = stiffen; }
  // Starts the aged refresh afresh (the next refresh evaluates every block): the same inputs
  // give the same bits after any reset.
  void setBlockAge(int steps) {
    blockAge_ = steps < 1 ? 1 : steps;
    agedBlocksValid_ = false;
    ageSlice_ = 0;
    renewalCursor_ = 0;
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < NP; ++p) pairAge_[e][p] = 0;
  }
  // Another build took the active storage: no low-rank columns, no blocks of this matrix in it.
  void forgetActiveMatrix() {
    blocksInActiveMatrix_ = false;
    updates_.clear();
  }
  // Another build overwrote the drive's blocks: the next refresh evaluates every block.
  void forgetAgedBlocks() { agedBlocksValid_ = false; }
  int refactoredBlocks() const { return refactoredBlocks_; }
  // x = A^-1 b from the factorization's x: the low-rank columns' correction.
  void correct(Vector& x) const { updates_.correct(x); }

  template <class Drive>
  void beginRefresh(Drive& d, NewtonStorage<NE, NP>& store);

  template <class Drive>
  Status refreshSlice(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int first, int last, int pairBudget);

  template <class Drive>
  Status finishRefresh(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point);

  // Applies the switches since the active matrix was built or last updated, at most maxColumns
  // columns, stiffening switches first (a matrix softer than the true one lets the iteration
  // overshoot); `pending` counts the switched segments left for later steps.
  template <class Drive>
  Status updateSwitches(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int maxColumns, int& columns, int& pending);

  // Partial re-factorization (BeltDrive::refactorSwitchedPairs).
  template <class Drive>
  Status refactorSwitchedPairs(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int maxPairs, int minColumns, int& pairs,
                               int& left);

 private:
  // Segment i's state code in a Jacobian signature (8: in contact; low 3 bits: StickSlip).
  static unsigned stateCode(std::uint64_t signature,
                            int i) { return static_cast<unsigned>((signature >> (4 * i)) & 15u); }
  static std::uint64_t withStateCode(std::uint64_t signature, int i, unsigned code) {
    return (signature & ~(std::uint64_t{15} << (4 * i))) | (static_cast<std::uint64_t>(code) << (4 * i));
  }
  static StickSlip codeState(unsigned code) {
    return static_cast<StickSlip>(static_cast<std::int8_t>(static_cast<std::int8_t>((code & 7u) << 5) >> 5));
  }
  // Stiffness order of a state code: not in contact < slipping < no anchor yet (velocity penalty
  // only) < sticking (bristle spring).
  static int switchStiffness(unsigned code) {
    if ((code & 8u) == 0) return 0;
    const StickSlip state = codeState(code);
    if (isSlipping(state)) return 1;
    return state == StickSlip::kStick ? 3 : 2;
  }
  // Columns the stiffening switches from signature `before` to `after` need; `switched`: how many
  // segments they are.
  static int stiffeningColumns(std::uint64_t before, std::uint64_t after, int& switched) {
    int columns = 0;
    switched = 0;
    for (int i = 0; i < NCS; ++i) {
      const unsigned b = stateCode(before, i);
      const unsigned a = stateCode(after, i);
      if (a == b || switchStiffness(a) <= switchStiffness(b)) continue;
      columns += (a & 8u) != (b & 8u) ? 2 : 1;
      ++switched;
    }
    return columns;
  }

  // What the kept matrix of a pair depends on: its Jacobian signature, where a new contact
  // (state undefined) counts as sticking if the matrix only stiffens.
  template <class Pair>
  std::uint64_t keptSignature(const Pair& pair) const {
    return pair.jacobianSignature(stiffenOnly_, true);
  }

  // The pair (e, p) as the kept matrix takes it (keptSignature; anchors as they are).
  template <class Drive>
  ContactPair<NCS> keptPair(const Drive& d, int e, int p) const;

  // Segment i of pair (e, p) in the state `code` (its current anchor kept).
  template <class Drive>
  static SegmentHistory historyInState(const Drive& d, int e, int p, int i, unsigned code);

  // One switch of segment i of pair (e, p) from state `before` to `after`: the change D of the
  // pair's Newton block, D ~ U V^T with U the segment's generalized load directions (tangential;
  // normal too for a contact switch) and V^T = (U^T U)^-1 U^T D, the part of D that acts along
  // them, which is all of it up to terms proportional to the force jump (the direction vectors'
  // own derivatives). Prescribed rows are left out.
  template <class Drive>
  Status applySwitch(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int e, int p, int i, unsigned before,
                     unsigned after);

  // The pair blocks an aged refresh evaluates again, at most pairBudget of them (a step that
  // re-factorized p pairs passes P - p, so that a step evaluates at most P pairs in all): first
  // the pairs in contact whose block is missing or holds other states, then those whose block is
  // 2 * blockAge_ refreshes old, then unchanged pairs, each group round robin. A pair left out
  // keeps its block and the states it holds; the difference is treated as a switch (columns,
  // partial re-factorization) or left to the next refresh.
  template <class Drive>
  void selectPairRenewals(const Drive& d, const NewtonBlocks<NE, NP>& blocks, int pairBudget, bool (&renew)[NE][NP]);

  Updates updates_;
  bool blockInMatrix_[NE][NP] = {};  // the drive's pair block is the pair's share of the kept matrix
  bool blocksInActiveMatrix_ = false;  // blockInMatrix_ describes the active matrix (not a refresh)
  bool agedBlocksValid_ = false;
  bool stiffenOnly_ = false;
  int pairAge_[NE][NP] = {};  // refreshes since the pair's block was evaluated
  int renewalCursor_ = 0;
  int refactoredBlocks_ = 0;  // chain blocks the last refactorSwitchedPairs eliminated again
  int blockAge_ = 1;
  int ageSlice_ = 0;
  int refreshedElements_ = 0;
};

template <int NE, int NP, int NCS>
template <class Drive>
void KeptNewtonMatrix<NE, NP, NCS>::beginRefresh(Drive& d, NewtonStorage<NE, NP>& store) {
  store.matrix.buildAside();
  store.matrix.beginAssembly();
  store.matrix.building().setInactiveBorder(d.prescribed().borderMask());
  store.matrix.building().beginFactorization(false);
  refreshedElements_ = 0;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status KeptNewtonMatrix<NE, NP, NCS>::refreshSlice(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int first, int last,
                                                   int pairBudget) {
  if (first != refreshedElements_ || last < first || last > NE || !store.matrix.buildingAside())
    return Status::kInvalidParameter;
  const IntegratorCoefficients& c = *point.coefficients;
  const Vector& q = *point.q;
  const Vector& v = *point.v;
  const bool aged = agedBlocksValid_ && blockAge_ > 1;
  bool renewPair[NE][NP] = {};
  if (aged) selectPairRenewals(d, store.blocks, pairBudget, renewPair);
  std::uint64_t (&refreshSignature)[NE][NP] = store.matrix.asideRecord().of;  // the states the refresh evaluated
  for (int e = first; e < last; ++e) {
    const Vector8 qe = d.gatherElement(q, e), ve = d.gatherElement(v, e);
    // Aged refresh: an element block is evaluated again once every blockAge_ refreshes, a pair
    // block when selectPairRenewals chose it; the others are the blocks the last refresh added.
    Status s = Status::kOk;
    if (!aged || (e + ageSlice_) % blockAge_ == 0) {
      Vector8 re;
      auto& m = store.blocks.element[e];
      s = d.element().internalForceAndCombinedJacobian(qe, ve, c.stiffnessFactor, c.dampingFactor, re, m);
      if (s != Status::kOk) return s;
      d.addMassMatrix(c.massFactor, m);
    }
    store.matrix.addElementMatrix(e, d.nextNode(e), store.blocks.element[e]);
    for (int p = 0; p < d.pulleyCount(); ++p) {
      const std::uint64_t signature = keptSignature(d.pair(e, p));
      const bool held = blockInMatrix_[e][p];
      refreshSignature[e][p] = signature;
      blockInMatrix_[e][p] = false;
      if (!d.pair(e, p).anyFlagged()) continue;
      Matrix11& block = store.blocks.pair[e][p];
      if (!aged || renewPair[e][p]) {
        s = contactPairNewtonMatrix(keptPair(d, e, p), qe, ve, d.shapeTable(), d.circleState(q, v, p),
                                    c.stiffnessFactor, c.dampingFactor, block);
        if (s != Status::kOk) return s;
        store.blocks.pairSignature.of[e][p] = signature;
        pairAge_[e][p] = 0;
      } else if (held) {
        refreshSignature[e][p] = store.blocks.pairSignature.of[e][p];  // the states its block holds
        ++pairAge_[e][p];
      } else {
        refreshSignature[e][p] = 0;  // not in the matrix: out of contact there
        continue;
      }
      store.matrix.addPairMatrix(e, d.nextNode(e), p, block);
      blockInMatrix_[e][p] = true;
    }
  }
  blocksInActiveMatrix_ = false;  // the held blocks are the refresh's until finishRefresh
  refreshedElements_ = last;
  const int complete = last == NE ? NE : last - 1;
  const int from = store.matrix.building().eliminatedBlocks();
  const auto rows = d.prescribed();
  for (int k = from; k < complete; ++k) rows.applyToBlock(store.matrix.building(), k);
  return store.matrix.building().factorizeBlocks(from, complete);
}

template <int NE, int NP, int NCS>
template <class Drive>
Status KeptNewtonMatrix<NE, NP, NCS>::finishRefresh(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point) {
  if (refreshedElements_ != NE || !store.matrix.buildingAside()) return Status::kInvalidParameter;
  const IntegratorCoefficients& c = *point.coefficients;
  for (int p = 0; p < NP; ++p)
    d.pulleys().addMatrix(p, *point.q, *point.v, c.massFactor, c.stiffnessFactor, c.dampingFactor, d.phase().mode,
                         store.matrix);
  d.prescribed().applyToCorner(store.matrix.building());
  const Status s = store.matrix.building().finishFactorization();
  if (s != Status::kOk) return s;
  store.matrix.makeAsideSolving(c.stiffnessFactor);  // with the signatures the refresh evaluated
  blocksInActiveMatrix_ = true;
  agedBlocksValid_ = true;
  if (++ageSlice_ >= blockAge_) ageSlice_ = 0;
  updates_.clear();
  return Status::kOk;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status KeptNewtonMatrix<NE, NP, NCS>::updateSwitches(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int maxColumns,
                                                     int& columns, int& pending) {
  columns = 0;
  pending = 0;
  std::uint64_t (&matrixSignature)[NE][NP] = store.matrix.solvingRecord().of;  // with its columns
  const int passes = stiffenOnly_ ? 1 : 2;
  for (int pass = 0; pass < passes; ++pass) {
    for (int e = 0; e < NE; ++e) {
      for (int p = 0; p < d.pulleyCount(); ++p) {
        const std::uint64_t now = keptSignature(d.pair(e, p));
        if (now == matrixSignature[e][p]) continue;
        for (int i = 0; i < NCS; ++i) {
          const unsigned before = stateCode(matrixSignature[e][p], i);
          const unsigned after = stateCode(now, i);
          if (before == after) continue;
          const bool stiffening = switchStiffness(after) > switchStiffness(before);
          if (stiffenOnly_ && !stiffening) continue;  // the stiffer state stays until the refresh
          if ((pass == 0) != stiffening) continue;
          const int needed = (before & 8u) != (after & 8u) ? 2 : 1;
          if (columns + needed > maxColumns || updates_.free() < needed) {
            ++pending;  // left for a later step (or the next refresh)
            continue;
          }
          const Status s = applySwitch(d, store, point, e, p, i, before, after);
          if (s != Status::kOk) return s;
          columns += needed;
          // Applied (or, if the updated matrix would be singular, dropped until the next refresh).
          matrixSignature[e][p] = withStateCode(matrixSignature[e][p], i, after);
        }
      }
    }
  }
  return Status::kOk;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status KeptNewtonMatrix<NE, NP, NCS>::refactorSwitchedPairs(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point,
                                                            int maxPairs, int minColumns, int& pairs,
                             int& left) {
  using NewtonMatrix = typename Drive::NewtonMatrix;
  pairs = 0;
  left = -1;
  refactoredBlocks_ = 0;
  if (maxPairs <= 0 || !blocksInActiveMatrix_ || updates_.count() != 0) return Status::kOk;
  std::uint64_t (&matrixSignature)[NE][NP] = store.matrix.solvingRecord().of;
  int changed[NE * NP];
  int count = 0, needed = 0;
  left = 0;
  for (int e = 0; e < NE; ++e) {
    for (int p = 0; p < d.pulleyCount(); ++p) {
      const std::uint64_t now = keptSignature(d.pair(e, p));
      if (now == matrixSignature[e][p]) continue;
      int switched = 0;
      const int columns = stiffeningColumns(matrixSignature[e][p], now, switched);
      if (columns == 0) continue;
      needed += columns;
      left += switched;
      changed[count++] = e * NP + p;
    }
  }
  if (needed < minColumns) return Status::kOk;
  const IntegratorCoefficients& c = *point.coefficients;
  const int previousTarget = store.matrix.buildInSolvingFor();
  int first = NE;
  bool touched[NE] = {};  // chain blocks whose entries change
  Status s = Status::kOk;
  for (int k = 0; k < count && pairs < maxPairs && s == Status::kOk; ++k) {
    const int e = changed[k] / NP, p = changed[k] % NP;
    // Each segment in the stiffer of its state in the matrix and its current one (softening
    // switches wait for the refresh, as with the columns).
    auto kept = keptPair(d, e, p);
    std::uint64_t signature = keptSignature(d.pair(e, p));
    for (int i = 0; i < NCS; ++i) {
      const unsigned before = stateCode(matrixSignature[e][p], i);
      const unsigned now = stateCode(signature, i);
      if (switchStiffness(before) <= switchStiffness(now)) continue;
      kept.setHistory(i, historyInState(d, e, p, i, before));
      signature = withStateCode(signature, i, before);
    }
    Matrix11 block = Matrix11::Zero();
    if (kept.anyFlagged())
      s = contactPairNewtonMatrix(kept, d.gatherElement(*point.q, e), d.gatherElement(*point.v, e), d.shapeTable(),
                                  d.circleState(*point.q, *point.v, p), c.stiffnessFactor, c.dampingFactor, block);
    if (s != Status::kOk) break;
    const Matrix11 change = blockInMatrix_[e][p] ? Matrix11(block - store.blocks.pair[e][p]) : block;
    store.matrix.addPairMatrix(e, d.nextNode(e), p, change);
    store.blocks.pair[e][p] = block;
    store.blocks.pairSignature.of[e][p] = signature;
    pairAge_[e][p] = 0;
    blockInMatrix_[e][p] = true;
    int switched = 0;
    stiffeningColumns(matrixSignature[e][p], keptSignature(d.pair(e, p)), switched);
    left -= switched;
    matrixSignature[e][p] = signature;
    if (NewtonMatrix::firstChainBlock(e) < first) first = NewtonMatrix::firstChainBlock(e);
    if (e >= 1) touched[e - 1] = true;  // node e
    if (d.nextNode(e) >= 1) touched[d.nextNode(e) - 1] = true;
    ++pairs;
  }
  if (s == Status::kOk && pairs > 0) {
    const auto rows = d.prescribed();
    for (int k = first; k < NE; ++k)
      if (touched[k]) rows.applyToBlock(store.matrix.building(), k);
    rows.applyToCorner(store.matrix.building());
    s = store.matrix.building().refactorizeFrom(first);
    refactoredBlocks_ = NE - first;
  }
  store.matrix.restoreBuilding(previousTarget);
  return s;
}

template <int NE, int NP, int NCS>
template <class Drive>
ContactPair<NCS> KeptNewtonMatrix<NE, NP, NCS>::keptPair(const Drive& d, int e, int p) const {
  auto kept = d.pair(e, p);
  for (int k = 0; k < NCS; ++k) kept.setHistory(k, d.pair(e, p).decidedHistory(k));
  if (!stiffenOnly_) return kept;
  for (int k = 0; k < NCS; ++k) {
    SegmentHistory h = kept.history(k);
    // A new contact (no anchor in D) enters stiffened; a renewing segment keeps its decided view.
    if (h.gap > 0.0 || d.pair(e, p).history(k).state != StickSlip::kUndefined) continue;
    h.state = StickSlip::kStick;
    kept.setHistory(k, h);
  }
  return kept;
}

template <int NE, int NP, int NCS>
template <class Drive>
SegmentHistory KeptNewtonMatrix<NE, NP, NCS>::historyInState(const Drive& d, int e, int p, int i, unsigned code) {
  SegmentHistory h = d.pair(e, p).history(i);
  h.gap = (code & 8u) ? 0.0 : 0.1;
  h.state = codeState(code);
  return h;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status KeptNewtonMatrix<NE, NP, NCS>::applySwitch(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<Vector>& point, int e, int p, int i,
                                                  unsigned before,
                   unsigned after) {
  using NewtonMatrix = typename Drive::NewtonMatrix;
  const IntegratorCoefficients& c = *point.coefficients;
  const Vector8 qe = d.gatherElement(*point.q, e), ve = d.gatherElement(*point.v, e);
  const CircleState cs = d.circleState(*point.q, *point.v, p);
  Matrix11 change;
  Status s = contactSegmentSwitchBlock(d.pair(e, p), qe, ve, d.shapeTable(), cs, i, historyInState(d, e, p, i, before),
                                       historyInState(d, e, p, i, after), c.stiffnessFactor, c.dampingFactor, change);
  if (s != Status::kOk) return s;
  // Global dofs of the pair's 11 local coordinates; prescribed rows stay as they are.
  int dof[11];
  for (int l = 0; l < 4; ++l) {
    dof[l] = Layout::nodeDof(e, l);
    dof[4 + l] = Layout::nodeDof(d.nextNode(e), l);
  }
  for (int l = 0; l < 3; ++l) dof[8 + l] = Layout::pulleyDof(p, l);
  const int columns = (before & 8u) != (after & 8u) ? 2 : 1;
  Eigen::Matrix<double, 11, 2> u = Eigen::Matrix<double, 11, 2>::Zero();
  s = segmentLoadDirections(d.pair(e, p), qe, ve, d.shapeTable(), cs, i, u);
  if (s != Status::kOk) return s;
  if (columns == 1) u.col(0) = u.col(1);  // tangential only
  const auto rows = d.prescribed();
  for (int l = 0; l < 11; ++l)
    if (rows.prescribed(dof[l])) u.row(l).setZero();
  Eigen::Matrix<double, 2, 2> gram = Eigen::Matrix<double, 2, 2>::Identity();
  Eigen::Matrix<double, 2, 11> projected = Eigen::Matrix<double, 2, 11>::Zero();
  for (int a = 0; a < columns; ++a) {
    for (int b = 0; b < columns; ++b) gram(a, b) = u.col(a).dot(u.col(b));
    for (int l = 0; l < 11; ++l) projected(a, l) = u.col(a).dot(change.col(l));
  }
  FixedLu<2> gramLu;
  if (gramLu.compute(gram) != Status::kOk) return Status::kOk;  // no load direction: nothing to add
  Eigen::Matrix<double, 2, 11> rowsV;
  gramLu.solveInto(projected.data(), rowsV.data(), 11);
  for (int a = 0; a < columns; ++a) {
    Vector column = Vector::Zero(), w;
    for (int l = 0; l < 11; ++l) column(NewtonMatrix::solverIndex(dof[l])) += u(l, a);
    s = store.matrix.solving().solve(column, w, NewtonMatrix::firstChainBlock(e));
    if (s != Status::kOk) return s;
    typename Updates::Row v;
    for (int l = 0; l < 11; ++l) {
      v.index[v.count] = NewtonMatrix::solverIndex(dof[l]);
      v.value[v.count] = rowsV(a, l);
      ++v.count;
    }
    s = updates_.add(w, v);
    if (s != Status::kOk && s != Status::kDegenerateState) return s;
  }
  return Status::kOk;
}

template <int NE, int NP, int NCS>
template <class Drive>
void KeptNewtonMatrix<NE, NP, NCS>::selectPairRenewals(const Drive& d, const NewtonBlocks<NE, NP>& blocks, int pairBudget,
                                                       bool (&renew)[NE][NP]) {
  constexpr int kPairs = NE * NP;
  // Each pair's group: 0 changed, 1 old, 2 other, -1 not in contact (nothing to evaluate).
  int group[NE][NP];
  for (int e = 0; e < NE; ++e)
    for (int p = 0; p < NP; ++p) {
      group[e][p] = -1;
      if (p >= d.pulleyCount() || !d.pair(e, p).anyFlagged()) continue;
      if (!blockInMatrix_[e][p] || blocks.pairSignature.of[e][p] != keptSignature(d.pair(e, p)))
        group[e][p] = 0;
      else
        group[e][p] = pairAge_[e][p] + 1 >= 2 * blockAge_ ? 1 : 2;
    }
  int spent = 0;
  int next = renewalCursor_;
  for (int g = 0; g < 3; ++g) {
    // Changed pairs are all evaluated (deferring them faults: docs/firmware.md, *Aged rebuild*).
    const int limit = g == 0 ? kPairs : pairBudget;
    for (int k = 0; k < kPairs && spent < limit; ++k) {
      const int index = (renewalCursor_ + k) % kPairs;
      const int e = index / NP, p = index % NP;
      if (group[e][p] != g) continue;
      renew[e][p] = true;
      ++spent;
      next = (index + 1) % kPairs;
    }
  }
  renewalCursor_ = next;
}


}  // namespace beltsim
