// Two storages of one factorized Newton matrix, each with a record of what went into it: the one
// that solves, and the one a refresh builds over several steps while the first keeps solving (the
// fixed-cost stepping, fixed_cost_stepper.hpp). A whole build in place (the reference stepping,
// the static solve) and an update of the matrix that solves (a partial re-factorization) build in
// the storage that solves. Both drives' matrices keep their storages in one of these
// (belt_newton_matrix.hpp, eulerian_newton_matrix.hpp).
//
// Vocabulary: building() is the storage entries go to; buildInSolving() points it at the storage
// that solves, buildAside() at the other one; makeAsideSolving() hands the solve over to the other
// storage once its factorization is complete, with the scale its right-hand sides take.
#pragma once
#include <cstdint>

namespace beltsim {

// A Jacobian signature for each contact pair of each element (ContactPair::jacobianSignature: 4
// bits per segment, the contact flag and the stick/slip state) as a matrix storage or a set of
// blocks holds it; K pairs per element.
template <int NE, int K>
struct PairSignatures {
  std::uint64_t of[NE][K] = {};
};

template <class Solver, class Record>
class DoubleBuffered {
 public:
  Solver& building() { return storage_[building_]; }
  Solver& solving() { return storage_[solving_]; }
  const Solver& solving() const { return storage_[solving_]; }
  Solver& aside() { return storage_[1 - solving_]; }
  // What went into each storage (a record per storage: the pairs' signatures, blocks).
  Record& buildingRecord() { return record_[building_]; }
  Record& solvingRecord() { return record_[solving_]; }
  const Record& solvingRecord() const { return record_[solving_]; }
  Record& asideRecord() { return record_[1 - solving_]; }

  void buildInSolving() { building_ = solving_; }
  void buildAside() { building_ = 1 - solving_; }
  bool buildingAside() const { return building_ != solving_; }
  // For an update in the storage that solves in the middle of a refresh: points building() at the
  // storage that solves and returns what restoreBuilding takes back.
  int buildInSolvingFor() {
    const int previous = building_;
    building_ = solving_;
    return previous;
  }
  void restoreBuilding(int previous) { building_ = previous; }

  // The other storage solves from now on.
  void makeAsideSolving(double scale) {
    solving_ = 1 - solving_;
    scale_ = scale;
  }
  // The factor a right-hand side is scaled by before a solve with the storage that solves: the
  // stiffness factor its matrix was built with divided out (rows of force per metre). Set by the
  // build that makes a factorization the one that solves.
  void setSolveScale(double scale) { scale_ = scale; }
  double solveScale() const { return scale_; }

 private:
  Solver storage_[2];
  Record record_[2];
  double scale_ = 1.0;
  int solving_ = 0;
  int building_ = 0;
};

}  // namespace beltsim
