// The kept Newton matrix of the fixed-cost stepper (fixed_cost_stepper.hpp): the bodies of the
// BeltDrive members that maintain it, apart from the assembled system in belt_drive.hpp so that
// a reader of the system does not read them, and a reader of the fixed-cost stepping finds them
// in one place. Part of belt_drive.hpp, which includes it at its end; not a header of its own.
//
//   refresh        beginRefresh, refreshSlice, finishRefresh: the whole matrix rebuilt in the
//                  second storage, a slice of elements per step, then made the active one;
//   switch columns updateSwitches, applySwitch, segmentLoadDirections: a stick/slip or contact
//                  switch as an exact rank-one or rank-two correction of the active matrix;
//   partial re-factorization
//                  refactorSwitchedPairs: the switched pairs evaluated again and the chain
//                  eliminated again from the first block they touch;
//   signatures     stiffeningColumns, keptSignature, keptPair, nibbleHistory: which state of
//                  each segment the kept matrix holds.
#pragma once

namespace beltsim {

template <int NE, int NP, int NCS>
void BeltDrive<NE, NP, NCS>::beginRefresh() {
  matrix_.assembleInShadow();
  matrix_.beginAssembly();
  matrix_.target().setInactiveBorder(prescribedBorderMask());
  matrix_.target().beginFactorization(false);
  refreshedElements_ = 0;
}

template <int NE, int NP, int NCS>
Status BeltDrive<NE, NP, NCS>::refreshSlice(const IterationPoint<Vector>& point, int first, int last, int pairBudget) {
  if (first != refreshedElements_ || last < first || last > NE || !matrix_.assemblingInShadow())
    return Status::kInvalidParameter;
  const IntegratorCoefficients& c = *point.coefficients;
  const Vector& q = *point.q;
  const Vector& v = *point.v;
  const bool aged = agedBlocksValid_ && blockAge_ > 1;
  bool renewPair[NE][NP] = {};
  if (aged) selectPairRenewals(pairBudget, renewPair);
  for (int e = first; e < last; ++e) {
    const Vector8 qe = gatherElement(q, e), ve = gatherElement(v, e);
    // Aged refresh: an element block is evaluated again once every blockAge_ refreshes, a pair
    // block when selectPairRenewals chose it; the others are the blocks the last refresh added.
    Status s = Status::kOk;
    if (!aged || (e + ageSlice_) % blockAge_ == 0) {
      Vector8 re;
      Matrix8& m = elementBlock_[e];
      s = element_.internalForceAndCombinedJacobian(qe, ve, c.stiffnessFactor, c.dampingFactor, re, m);
      if (s != Status::kOk) return s;
      addMassMatrix(c.massFactor, m);
    }
    matrix_.addElementMatrix(e, nextNode(e), elementBlock_[e]);
    for (int p = 0; p < circleCount_; ++p) {
      const std::uint64_t signature = keptSignature(pair_[e][p]);
      const bool held = pairHeld_[e][p];
      shadowSignature_[e][p] = signature;
      pairHeld_[e][p] = false;
      if (!pair_[e][p].anyFlagged()) continue;
      Matrix11& block = pairBlock_[e][p];
      if (!aged || renewPair[e][p]) {
        s = contactPairNewtonMatrix(keptPair(e, p), qe, ve, shapeTable(),
                                    circleState(q, v, p), c.stiffnessFactor, c.dampingFactor, block);
        if (s != Status::kOk) return s;
        pairBlockSignature_[e][p] = signature;
        pairAge_[e][p] = 0;
      } else if (held) {
        shadowSignature_[e][p] = pairBlockSignature_[e][p];  // the states its block holds
        ++pairAge_[e][p];
      } else {
        shadowSignature_[e][p] = 0;  // not in the matrix: out of contact there
        continue;
      }
      matrix_.addPairMatrix(e, nextNode(e), p, block);
      pairHeld_[e][p] = true;
    }
  }
  heldBlocksActive_ = false;  // the held blocks are the refresh's until finishRefresh
  refreshedElements_ = last;
  const int complete = last == NE ? NE : last - 1;
  const int from = matrix_.target().eliminatedBlocks();
  for (int k = from; k < complete; ++k) applyPrescribedRowsToBlock(k);
  return matrix_.target().factorizeBlocks(from, complete);
}

// The pair blocks an aged refresh evaluates again, at most pairBudget of them (a step that
// re-factorized p pairs passes P - p, so that a step evaluates at most P pairs in all): first the
// pairs in contact whose block is missing or holds other contact or stick/slip states, then
// those whose block is 2 * blockAge_ refreshes old, then unchanged pairs, each group round robin.
// A pair left out keeps its block and the states it holds; the kept matrix treats the difference
// as a switch (columns, partial re-factorization) or leaves it to the next refresh.
template <int NE, int NP, int NCS>
void BeltDrive<NE, NP, NCS>::selectPairRenewals(int pairBudget, bool (&renew)[NE][NP]) {
  constexpr int kPairs = NE * NP;
  // Each pair's group: 0 changed, 1 old, 2 other, -1 not in contact (nothing to evaluate).
  int group[NE][NP];
  for (int e = 0; e < NE; ++e)
    for (int p = 0; p < NP; ++p) {
      group[e][p] = -1;
      if (p >= circleCount_ || !pair_[e][p].anyFlagged()) continue;
      if (!pairHeld_[e][p] || pairBlockSignature_[e][p] != keptSignature(pair_[e][p]))
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

template <int NE, int NP, int NCS>
Status BeltDrive<NE, NP, NCS>::finishRefresh(const IterationPoint<Vector>& point) {
  if (refreshedElements_ != NE || !matrix_.assemblingInShadow()) return Status::kInvalidParameter;
  const IntegratorCoefficients& c = *point.coefficients;
  for (int p = 0; p < NP; ++p) circleMatrix(p, *point.q, *point.v, c.massFactor, c.stiffnessFactor, c.dampingFactor);
  applyPrescribedCornerRows();
  const Status s = matrix_.target().finishFactorization();
  if (s != Status::kOk) return s;
  matrix_.makeTargetActive();
  heldBlocksActive_ = true;
  agedBlocksValid_ = true;
  if (++ageSlice_ >= blockAge_) ageSlice_ = 0;
  updates_.clear();
  for (int e = 0; e < NE; ++e)
    for (int p = 0; p < circleCount_; ++p) matrixSignature_[e][p] = shadowSignature_[e][p];
  scale_ = c.stiffnessFactor;
  factorized_ = false;  // the reference path's blocks no longer describe the active matrix
  blocksValid_ = false;
  return Status::kOk;
}

template <int NE, int NP, int NCS>
Status BeltDrive<NE, NP, NCS>::updateSwitches(const IterationPoint<Vector>& point, int maxColumns, int& columns,
                                              int& pending) {
  columns = 0;
  pending = 0;
  const int passes = stiffenOnly_ ? 1 : 2;
  for (int pass = 0; pass < passes; ++pass) {
    for (int e = 0; e < NE; ++e) {
      for (int p = 0; p < circleCount_; ++p) {
        const std::uint64_t now = keptSignature(pair_[e][p]);
        if (now == matrixSignature_[e][p]) continue;
        for (int i = 0; i < NCS; ++i) {
          const unsigned before = nibbleOf(matrixSignature_[e][p], i);
          const unsigned after = nibbleOf(now, i);
          if (before == after) continue;
          const bool stiffening = switchStiffness(after) > switchStiffness(before);
          if (stiffenOnly_ && !stiffening) continue;  // the stiffer state stays until the refresh
          if ((pass == 0) != stiffening) continue;
          const int needed = (before & 8u) != (after & 8u) ? 2 : 1;
          if (columns + needed > maxColumns || updates_.free() < needed) {
            ++pending;  // left for a later step (or the next refresh)
            continue;
          }
          const Status s = applySwitch(point, e, p, i, before, after);
          if (s != Status::kOk) return s;
          columns += needed;
          // Applied (or, if the updated matrix would be singular, dropped until the next refresh).
          matrixSignature_[e][p] = (matrixSignature_[e][p] & ~(std::uint64_t{15} << (4 * i))) |
                                   (static_cast<std::uint64_t>(after) << (4 * i));
        }
      }
    }
  }
  return Status::kOk;
}

template <int NE, int NP, int NCS>
Status BeltDrive<NE, NP, NCS>::refactorSwitchedPairs(const IterationPoint<Vector>& point, int maxPairs,
                                                     int minColumns, int& pairs, int& left) {
  pairs = 0;
  left = -1;
  refactoredBlocks_ = 0;
  if (maxPairs <= 0 || !heldBlocksActive_ || updates_.count() != 0) return Status::kOk;
  int changed[NE * NP];
  int count = 0, needed = 0;
  left = 0;
  for (int e = 0; e < NE; ++e) {
    for (int p = 0; p < circleCount_; ++p) {
      const std::uint64_t now = keptSignature(pair_[e][p]);
      if (now == matrixSignature_[e][p]) continue;
      int switched = 0;
      const int columns = stiffeningColumns(matrixSignature_[e][p], now, switched);
      if (columns == 0) continue;
      needed += columns;
      left += switched;
      changed[count++] = e * NP + p;
    }
  }
  if (needed < minColumns) return Status::kOk;
  const IntegratorCoefficients& c = *point.coefficients;
  const int previousTarget = matrix_.targetActive();
  int first = NE;
  bool touched[NE] = {};  // chain blocks whose entries change
  Status s = Status::kOk;
  for (int k = 0; k < count && pairs < maxPairs && s == Status::kOk; ++k) {
    const int e = changed[k] / NP, p = changed[k] % NP;
    // Each segment in the stiffer of its state in the matrix and its current one (softening
    // switches wait for the refresh, as with the columns).
    Pair kept = keptPair(e, p);
    std::uint64_t signature = keptSignature(pair_[e][p]);
    for (int i = 0; i < NCS; ++i) {
      const unsigned before = nibbleOf(matrixSignature_[e][p], i);
      const unsigned now = nibbleOf(signature, i);
      if (switchStiffness(before) <= switchStiffness(now)) continue;
      kept.setHistory(i, nibbleHistory(e, p, i, before));
      signature = (signature & ~(std::uint64_t{15} << (4 * i))) | (static_cast<std::uint64_t>(before) << (4 * i));
    }
    Matrix11 block = Matrix11::Zero();
    if (kept.anyFlagged())
      s = contactPairNewtonMatrix(kept, gatherElement(*point.q, e), gatherElement(*point.v, e), shapeTable(),
                                  circleState(*point.q, *point.v, p), c.stiffnessFactor, c.dampingFactor, block);
    if (s != Status::kOk) break;
    const Matrix11 change = pairHeld_[e][p] ? Matrix11(block - pairBlock_[e][p]) : block;
    matrix_.addPairMatrix(e, nextNode(e), p, change);
    pairBlock_[e][p] = block;
    pairBlockSignature_[e][p] = signature;
    pairAge_[e][p] = 0;
    pairHeld_[e][p] = true;
    int switched = 0;
    stiffeningColumns(matrixSignature_[e][p], keptSignature(pair_[e][p]), switched);
    left -= switched;
    matrixSignature_[e][p] = signature;
    if (NewtonMatrix::firstChainBlock(e) < first) first = NewtonMatrix::firstChainBlock(e);
    if (e >= 1) touched[e - 1] = true;   // node e
    if (nextNode(e) >= 1) touched[nextNode(e) - 1] = true;
    ++pairs;
  }
  if (s == Status::kOk && pairs > 0) {
    for (int k = first; k < NE; ++k)
      if (touched[k]) applyPrescribedRowsToBlock(k);
    applyPrescribedCornerRows();
    s = matrix_.target().refactorizeFrom(first);
    refactoredBlocks_ = NE - first;
  }
  matrix_.restoreTarget(previousTarget);
  return s;
}

template <int NE, int NP, int NCS>
int BeltDrive<NE, NP, NCS>::stiffeningColumns(std::uint64_t before, std::uint64_t after, int& switched) {
  int columns = 0;
  switched = 0;
  for (int i = 0; i < NCS; ++i) {
    const unsigned b = nibbleOf(before, i);
    const unsigned a = nibbleOf(after, i);
    if (a == b || switchStiffness(a) <= switchStiffness(b)) continue;
    columns += (a & 8u) != (b & 8u) ? 2 : 1;
    ++switched;
  }
  return columns;
}

template <int NE, int NP, int NCS>
std::uint64_t BeltDrive<NE, NP, NCS>::keptSignature(const Pair& pair) const {
  return pair.jacobianSignature(stiffenOnly_, true);
}

template <int NE, int NP, int NCS>
typename BeltDrive<NE, NP, NCS>::Pair BeltDrive<NE, NP, NCS>::keptPair(int e, int p) const {
  Pair kept = pair_[e][p];
  for (int k = 0; k < NCS; ++k) kept.setHistory(k, pair_[e][p].decidedHistory(k));
  if (!stiffenOnly_) return kept;
  for (int k = 0; k < NCS; ++k) {
    SegmentHistory h = kept.history(k);
    // A new contact (no anchor in D) enters stiffened; a renewing segment keeps its decided view.
    if (h.gap > 0.0 || pair_[e][p].history(k).state != StickSlip::kUndefined) continue;
    h.state = StickSlip::kStick;
    kept.setHistory(k, h);
  }
  return kept;
}

template <int NE, int NP, int NCS>
SegmentHistory BeltDrive<NE, NP, NCS>::nibbleHistory(int e, int p, int i, unsigned nibble) const {
  SegmentHistory h = pair_[e][p].history(i);
  h.gap = (nibble & 8u) ? 0.0 : 0.1;
  h.state = nibbleState(nibble);
  return h;
}

template <int NE, int NP, int NCS>
Status BeltDrive<NE, NP, NCS>::applySwitch(const IterationPoint<Vector>& point, int e, int p, int i, unsigned before,
                                           unsigned after) {
  const IntegratorCoefficients& c = *point.coefficients;
  const Vector8 qe = gatherElement(*point.q, e), ve = gatherElement(*point.v, e);
  const CircleState cs = circleState(*point.q, *point.v, p);
  Matrix11 change;
  Status s = contactSegmentSwitchBlock(pair_[e][p], qe, ve, shapeTable(), cs, i, nibbleHistory(e, p, i, before),
                                       nibbleHistory(e, p, i, after), c.stiffnessFactor, c.dampingFactor, change);
  if (s != Status::kOk) return s;
  // Global dofs of the pair's 11 local coordinates; prescribed rows stay as they are.
  int dof[11];
  for (int l = 0; l < 4; ++l) {
    dof[l] = nodeDof(e, l);
    dof[4 + l] = nodeDof(nextNode(e), l);
  }
  for (int l = 0; l < 3; ++l) dof[8 + l] = circleDof(p, l);
  const int columns = (before & 8u) != (after & 8u) ? 2 : 1;
  Eigen::Matrix<double, 11, 2> u = Eigen::Matrix<double, 11, 2>::Zero();
  s = segmentLoadDirections(pair_[e][p], qe, ve, cs, i, u);
  if (s != Status::kOk) return s;
  if (columns == 1) u.col(0) = u.col(1);  // tangential only
  for (int l = 0; l < 11; ++l)
    if (prescribedKind(dof[l]) != Prescribed::kNo) u.row(l).setZero();
  Eigen::Matrix<double, 2, 2> gram = Eigen::Matrix<double, 2, 2>::Identity();
  Eigen::Matrix<double, 2, 11> projected = Eigen::Matrix<double, 2, 11>::Zero();
  for (int a = 0; a < columns; ++a) {
    for (int b = 0; b < columns; ++b) gram(a, b) = u.col(a).dot(u.col(b));
    for (int l = 0; l < 11; ++l) projected(a, l) = u.col(a).dot(change.col(l));
  }
  FixedLu<2> gramLu;
  if (gramLu.compute(gram) != Status::kOk) return Status::kOk;  // no load direction: nothing to add
  Eigen::Matrix<double, 2, 11> rows;
  gramLu.solveInto(projected.data(), rows.data(), 11);
  for (int a = 0; a < columns; ++a) {
    Vector column = Vector::Zero(), w;
    for (int l = 0; l < 11; ++l) column(NewtonMatrix::solverIndex(dof[l])) += u(l, a);
    s = matrix_.active().solve(column, w, NewtonMatrix::firstChainBlock(e));
    if (s != Status::kOk) return s;
    typename Updates::Row v;
    for (int l = 0; l < 11; ++l) {
      v.index[v.count] = NewtonMatrix::solverIndex(dof[l]);
      v.value[v.count] = rows(a, l);
      ++v.count;
    }
    s = updates_.add(w, v);
    if (s != Status::kOk && s != Status::kDegenerateState) return s;
  }
  return Status::kOk;
}

template <int NE, int NP, int NCS>
Status BeltDrive<NE, NP, NCS>::segmentLoadDirections(const Pair& pair, const Vector8& qe, const Vector8& ve,
                                                     const CircleState& cs, int i,
                                                     Eigen::Matrix<double, 11, 2>& u) {
  const SegmentShapeTable<NCS>& table = shapeTable();
  SegmentPoints<NCS> pts;
  const Status s = computeSegmentPoints(qe, ve, table, pair.parameters().offset, pts);
  if (s != Status::kOk) return s;
  const SegmentGeometry g = segmentGeometry(pts.position[i], pts.position[i + 1], cs.centre, pair.parameters(), i);
  const Vector2 direction[2] = {g.normal, g.tangent};
  for (int a = 0; a < 2; ++a) {
    Vector8 element = Vector8::Zero();
    addPointForce(table.shape[i], pts.slope[i], pts.tangent[i], pts.slopeSquared[i], pair.parameters().offset,
                  Vector2((1.0 - g.rho) * direction[a]), element);
    addPointForce(table.shape[i + 1], pts.slope[i + 1], pts.tangent[i + 1], pts.slopeSquared[i + 1],
                  pair.parameters().offset, Vector2(g.rho * direction[a]), element);
    u.col(a).template head<8>() = element;
    u(8, a) = -direction[a](0);
    u(9, a) = -direction[a](1);
    u(10, a) = a == 1 ? -pair.parameters().radius : 0.0;
  }
  return Status::kOk;
}

}  // namespace beltsim
