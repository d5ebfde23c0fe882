// The Newton matrix of the reference stepping (docs/model_drive_and_solver.md §7.5, §7.11): massFactor M +
// stiffnessFactor K + dampingFactor D assembled from each element's and each contact pair's
// block into the bordered block-tridiagonal storage and factorized, with the builds the
// reference stepping needs between steps:
//   kFull             every element and pair block evaluated at the current point and kept;
//   kChangedContacts  only the pairs whose contact flags or stick/slip states changed since their
//                     last evaluation (their Jacobian signature), the chain blocks before the
//                     first one they touch keeping their elimination (the same bits as a whole
//                     factorization); an approximate matrix, which only changes the convergence.
// The blocks it keeps (NewtonStorage::blocks) are also where the kept matrix's refresh keeps its
// own (kept_newton_matrix.hpp); whichever built last owns them, and the drive tells the other.
#pragma once
#include <cstdint>

#include "beltsim/contact/contact_jacobian.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/belt_newton_matrix.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class ReferenceNewtonMatrix {
 public:
  using Matrix11 = Eigen::Matrix<double, 11, 11>;

  // false (the paper's validation): the whole border is eliminated; true
  // (IntegratorSettings::compactBorder): the prescribed border unknowns are left out of the
  // elimination, the same matrix in fewer operations (results agree to rounding). A change takes
  // effect at the next build, which is then a whole one.
  void setCompactBorder(bool compact) {
    if (compact != compactBorder_) factorized_ = false;
    compactBorder_ = compact;
  }
  bool compactBorder() const { return compactBorder_; }
  void resetBorder() { compactBorder_ = false; }
  // Chain blocks whose elimination the last build kept (0: eliminated whole).
  int reusedChainBlocks() const { return reusedChainBlocks_; }
  // Whether the last factorize assembled into the active storage (its blocks were all built).
  bool tookActiveStorage() const { return tookActiveStorage_; }
  // The blocks and the factorization no longer describe the active matrix.
  void invalidate() {
    blocksValid_ = false;
    factorized_ = false;
  }

  // Builds and factorizes at `point`; `built`: whether anything was evaluated again (false: the
  // last factorization still holds; true: the storage's blocks are this build's). Always inlined
  // into its caller (the reference stepper's Newton loop), so that no frame of its own adds to the
  // deepest stack path (docs/firmware.md, *Measured figures*).
  template <class Drive>
  [[gnu::always_inline]] inline Status factorize(Drive& d, NewtonStorage<NE, NP>& store,
                                                const IterationPoint<typename Drive::Vector>& point, MatrixUpdate update,
                                                bool& built);

 private:
  template <class Drive>
  bool anyPairChangedSinceBuild(const Drive& d) const {
    for (int p = 0; p < d.pulleyCount(); ++p)
      for (int e = 0; e < NE; ++e)
        if (d.pair(e, p).jacobianSignature() != pairSignature_[e][p]) return true;
    return false;
  }

  template <class Drive>
  Status buildElementBlocks(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<typename Drive::Vector>& point, const double (&factors)[3]);

  // The blocks of the pairs whose Jacobian signature changed since their last build (all: `full`).
  // firstChanged: the first chain block whose entries a rebuilt pair touches (NE: none).
  template <class Drive>
  Status buildPairBlocks(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<typename Drive::Vector>& point, const double (&factors)[3],
                         bool full, int& firstChanged);

  // The Newton matrix from the kept blocks, the circles and the prescribed rows, factorized in
  // place. reusedChainBlocks > 0: the storage holds the factorization of a matrix whose chain
  // blocks before reusedChainBlocks had the entries assembled now (the same blocks added in the same
  // order); their elimination and entries are kept and the rest redone from there, the same bits
  // as a whole factorization (BorderedBlockTridiagonal::refactorizeFrom with the complete corner).
  // The corner is always assembled anew: the circles' entries and the pairs' coupling to the
  // border may change. The static equilibrium always eliminates the whole border, so that a plant
  // started again starts from the same bits.
  template <class Drive>
  Status assembleAndFactorize(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<typename Drive::Vector>& point, const double (&factors)[3],
                              int reusedChainBlocks);

  std::uint64_t pairSignature_[NE][NP] = {};  // each pair's jacobianSignature at its last build
  double blockFactors_[3] = {0.0, 0.0, 0.0};  // the factors the blocks were built with
  bool blocksValid_ = false;
  bool factorized_ = false;  // the solver holds the factorization of exactly these blocks
  bool compactBorder_ = false;
  bool tookActiveStorage_ = false;
  int reusedChainBlocks_ = 0;
  Matrix11 contactStiffness_, contactDamping_;  // scratch of the finite-difference pair Jacobian
};

template <int NE, int NP, int NCS>
template <class Drive>
Status ReferenceNewtonMatrix<NE, NP, NCS>::factorize(Drive& d, NewtonStorage<NE, NP>& store, const IterationPoint<typename Drive::Vector>& point,
                                                     MatrixUpdate update, bool& built) {
  built = false;
  tookActiveStorage_ = false;
  const IntegratorCoefficients& c = *point.coefficients;
  const bool isStatic = d.phase().isStatic();
  // Static: d/dq of [s M (q - q_prev) + Q(q, 0)] -> mass factor s, stiffness 1, damping 0.
  const double factors[3] = {isStatic ? d.phase().stabilizer : c.massFactor, isStatic ? 1.0 : c.stiffnessFactor,
                             isStatic ? 0.0 : c.dampingFactor};
  const bool full = update == MatrixUpdate::kFull || !blocksValid_ || isStatic || blockFactors_[0] != factors[0] ||
                    blockFactors_[1] != factors[1] || blockFactors_[2] != factors[2];
  if (!full && factorized_ && !anyPairChangedSinceBuild(d)) return Status::kOk;
  // An update of the last factorization's blocks where pairs changed: the chain blocks before
  // the first one a changed pair touches keep their entries and their elimination.
  const bool keepsChain = !full && factorized_;
  built = true;
  blocksValid_ = false;
  factorized_ = false;
  Status s = full ? buildElementBlocks(d, store, point, factors) : Status::kOk;
  int firstChanged = 0;
  if (s == Status::kOk) s = buildPairBlocks(d, store, point, factors, full, firstChanged);
  if (s != Status::kOk) return s;
  for (int k = 0; k < 3; ++k) blockFactors_[k] = factors[k];
  blocksValid_ = !isStatic;
  s = assembleAndFactorize(d, store, point, factors, keepsChain ? firstChanged : 0);
  factorized_ = s == Status::kOk && !isStatic;
  return s;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status ReferenceNewtonMatrix<NE, NP, NCS>::buildElementBlocks(Drive& d, NewtonStorage<NE, NP>& store,
                                                              const IterationPoint<typename Drive::Vector>& point,
                                                              const double (&factors)[3]) {
  for (int e = 0; e < NE; ++e) {
    typename Drive::Vector8 re;
    typename Drive::Matrix8& m = store.blocks.element[e];
    const Status s = d.element().internalForceAndCombinedJacobian(d.gatherElement(*point.q, e),
                                                                 d.gatherElement(*point.v, e),
                                                                 factors[1], factors[2], re, m);
    if (s != Status::kOk) return s;
    d.addMassMatrix(factors[0], m);
  }
  return Status::kOk;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status ReferenceNewtonMatrix<NE, NP, NCS>::buildPairBlocks(Drive& d, NewtonStorage<NE, NP>& store,
                                                           const IterationPoint<typename Drive::Vector>& point,
                                                           const double (&factors)[3], bool full, int& firstChanged) {
  using NewtonMatrix = typename Drive::NewtonMatrix;
  const auto& q = *point.q;
  const auto& v = *point.v;
  firstChanged = NE;
  for (int p = 0; p < d.pulleyCount(); ++p) {
    const CircleState cs = d.circleState(q, v, p);
    for (int e = 0; e < NE; ++e) {
      auto& pair = d.pair(e, p);
      const std::uint64_t signature = pair.jacobianSignature();
      if (!full && signature == pairSignature_[e][p]) continue;
      pairSignature_[e][p] = signature;
      // Its block enters, leaves or changes (the signature holds the flags anyFlagged reads).
      if (NewtonMatrix::firstChainBlock(e) < firstChanged) firstChanged = NewtonMatrix::firstChainBlock(e);
      if (!pair.anyFlagged()) continue;  // its block is never read
      Matrix11& m = store.blocks.pair[e][p];
      if (segmentNormalPath(pair, d.shapeTable())) {
        const Status s = contactPairNewtonMatrix(pair, d.gatherElement(q, e), d.gatherElement(v, e), d.shapeTable(),
                                                 cs, factors[1], factors[2], m);
        if (s != Status::kOk) return s;
        continue;
      }
      const Status s = contactPairJacobian(pair, d.gatherElement(q, e), d.gatherElement(v, e), d.shapeTable(), cs,
                                           contactStiffness_, contactDamping_);
      if (s != Status::kOk) return s;
      for (int j = 0; j < 11; ++j)
        for (int i = 0; i < 11; ++i)
          m(i, j) = factors[1] * contactStiffness_(i, j) + factors[2] * contactDamping_(i, j);
    }
  }
  return Status::kOk;
}

template <int NE, int NP, int NCS>
template <class Drive>
Status ReferenceNewtonMatrix<NE, NP, NCS>::assembleAndFactorize(Drive& d, NewtonStorage<NE, NP>& store,
                                                                const IterationPoint<typename Drive::Vector>& point,
                                                                const double (&factors)[3], int reusedChainBlocks) {
  auto& matrix = store.matrix;
  matrix.buildInSolving();
  tookActiveStorage_ = true;
  matrix.beginAssembly(reusedChainBlocks);
  const auto rows = d.prescribed();
  const bool compact = compactBorder_ && !d.phase().isStatic();
  matrix.building().setInactiveBorder(compact ? rows.borderMask() : 0u);
  for (int e = 0; e < NE; ++e) matrix.addElementMatrix(e, d.nextNode(e), store.blocks.element[e]);
  for (int p = 0; p < NP; ++p) {
    for (int e = 0; e < NE && p < d.pulleyCount(); ++e)
      if (d.pair(e, p).anyFlagged()) matrix.addPairMatrix(e, d.nextNode(e), p, store.blocks.pair[e][p]);
    d.pulleys().addMatrix(p, *point.q, *point.v, factors[0], factors[1], factors[2], d.phase().mode, matrix);
  }
  rows.applyToMatrix(matrix);
  matrix.finishAssembly();
  matrix.setSolveScale(factors[1]);
  reusedChainBlocks_ = reusedChainBlocks;
  if (reusedChainBlocks > 0) return matrix.building().refactorizeFrom(reusedChainBlocks, true);
  return matrix.building().factorize();
}


}  // namespace beltsim
