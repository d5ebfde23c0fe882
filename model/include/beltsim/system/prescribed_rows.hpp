// Prescribed unknowns (docs/model_drive_and_solver.md §7.4): a fixed axis, a clamped or pinned cable end, a
// speed-driven pulley's rotation, the unused node of a closed belt, and in the static solve the
// locked rotations and node 0's x. Each one's Newton row is replaced instead of adding a
// constraint: the row becomes rowScale(dof) times the identity, and its residual sets the
// velocity (dynamic) or the position (static) to the prescribed value. The replaced row's
// original value is the reaction: a speed-driven pulley's drive torque.
//
// A PrescribedRows is a view of the drive (pulleys, belt ends, mode) taken where it is used.
#pragma once
#include <cstdint>

#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/pulley_bodies.hpp"

namespace beltsim {

enum class Prescribed : std::uint8_t { kNo, kFixed, kSpeed, kStaticLock };

template <int NE, int NP>
struct PrescribedRows {
  using Layout = DriveLayout<NE, NP>;
  using Vector = typename Layout::Vector;
  static constexpr int kNodes = Layout::kNodes;

  const PulleyBodies<NE, NP>& pulleys;
  const BeltParameters& belt;
  DriveMode mode;
  double lumpedNodeMass;  // rho A L / 2: the row scale of node coordinates, kg

  Prescribed kind(int dof) const {
    if (dof >= 4 * kNodes) {
      const PulleyKind circle = pulleys.pulley(Layout::pulleyOf(dof)).kind;
      if (Layout::pulleyLocal(dof) < 2) return movingCentre(circle) ? Prescribed::kNo : Prescribed::kFixed;
      if (circle == PulleyKind::kFixed) return Prescribed::kFixed;
      if (mode == DriveMode::kStatic) return Prescribed::kStaticLock;  // rotations locked (docs/model_start_and_benchmark.md §8.3)
      return circle == PulleyKind::kSpeedDriven ? Prescribed::kSpeed : Prescribed::kNo;
    }
    const int node = dof / 4, local = dof % 4;
    if (belt.closed) {
      if (node == NE) return Prescribed::kFixed;  // unused block of a closed belt
      if (mode == DriveMode::kStatic && node == 0 && local == 0) return Prescribed::kStaticLock;
      return Prescribed::kNo;
    }
    const CableEnd end = node == 0 ? belt.startEnd : (node == NE ? belt.finishEnd : CableEnd::kFree);
    if (end == CableEnd::kClamped) return Prescribed::kFixed;
    if (end == CableEnd::kPinned && local < 2) return Prescribed::kFixed;
    return Prescribed::kNo;
  }
  bool prescribed(int dof) const { return kind(dof) != Prescribed::kNo; }

  // A mass of the unknown's kind, so that a replaced row has force units and a size comparable
  // with the free rows.
  double rowScale(int dof) const {
    if (dof >= 4 * kNodes) {
      const int p = Layout::pulleyOf(dof);
      if (Layout::pulleyLocal(dof) == 2) return pulleys.pulley(p).inertia;
      return movingCentre(pulleys.pulley(p).kind) ? pulleys.centreMass(p) : lumpedNodeMass;
    }
    return lumpedNodeMass;
  }

  // The prescribed border unknowns (bit b: border unknown b): a compact border leaves them out of
  // its elimination (bordered_block_tridiagonal.hpp). Two pulleys with fixed axes and a
  // speed-driven P1: 5 of the 10 border unknowns.
  std::uint32_t borderMask() const {
    std::uint32_t mask = 0;
    for (int b = 0; b < Layout::kBorder; ++b)
      if (prescribed(Layout::borderDof(b))) mask |= 1u << b;
    return mask;
  }

  // Replaces the prescribed rows of residual r at `point`; the drive torques and the static lock's
  // reaction go to `reactions`.
  void applyToResidual(const IterationPoint<Vector>& point, const StaticPhase<Vector>& phase,
                       PulleyReactions<NP>& reactions, Vector& r) const {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const Vector& a = *point.a;
    const IntegratorCoefficients& c = *point.coefficients;
    for (int p = 0; p < NP; ++p) reactions.driveTorque[p] = 0.0;
    for (int dof = 0; dof < Layout::kSize; ++dof) {
      const Prescribed k = kind(dof);
      if (k == Prescribed::kNo) continue;
      const double m = rowScale(dof);
      if (mode == DriveMode::kStatic) {
        if (dof == Layout::nodeDof(0, 0) && k == Prescribed::kStaticLock) reactions.staticLockReaction = r(dof);
        // Position level: Newton sets q to the lock (or keeps a fixed coordinate where it is).
        const double target = k == Prescribed::kFixed ? phase.previous(dof) : phase.locks(dof);
        r(dof) = m * (q(dof) - target);
        continue;
      }
      double target = 0.0;
      if (k == Prescribed::kSpeed) {
        const int p = Layout::pulleyOf(dof);
        target = pulleys.prescribedSpeed(p, point.time);
        // The drive supplies J alpha + d omega + contact torque - applied torque. For alpha it uses
        // the step's mean angular acceleration (omega(t) - omega(t - h)) / h instead of the
        // trapezoidal rule's end-point value, which oscillates by +-J alpha from step to step after
        // a kink in the speed profile (the rule's acceleration recursion has an eigenvalue -1).
        const double h = c.dampingFactor / c.gamma;
        const double meanAcceleration = (target - pulleys.speedAtStepStart(p, point.time, h)) / h;
        reactions.driveTorque[p] = r(dof) + pulleys.pulley(p).inertia * (meanAcceleration - a(dof));
      }
      // Velocity level: delta = (v - target) / gamma' after the solve's scaling (BeltDrive::solve).
      r(dof) = m * (v(dof) - target) / c.dampingFactor;
    }
  }

  // The whole matrix being assembled (BeltNewtonMatrix): each prescribed row the scaled identity.
  template <class NewtonMatrix>
  void applyToMatrix(NewtonMatrix& matrix) const {
    for (int dof = 0; dof < Layout::kSize; ++dof) {
      if (!prescribed(dof)) continue;
      matrix.clearRow(dof);
      matrix.addEntry(dof, dof, rowScale(dof));
    }
  }

  // The corner of a matrix assembled block by block (the kept matrix's refresh): its prescribed
  // border rows the scaled identity (the chain blocks' share: applyToBlock).
  template <class Solver>
  void applyToCorner(Solver& target) const {
    for (int b = 0; b < Layout::kBorder; ++b) {
      const int dof = Layout::borderDof(b);
      if (!prescribed(dof)) continue;
      target.corner().row(b).setZero();
      target.corner()(b, b) = rowScale(dof);
    }
  }

  // Chain block k, before it is eliminated: rows of the block's own prescribed unknowns become
  // the scaled identity, and prescribed border rows lose their entries in block k's columns (as
  // applyToMatrix does for the whole matrix).
  template <class Solver>
  void applyToBlock(Solver& target, int k) const {
    for (int l = 0; l < 4; ++l) {
      const int dof = Layout::nodeDof(k + 1, l);
      if (!prescribed(dof)) continue;
      target.diagonal(k).row(l).setZero();
      target.lower(k).row(l).setZero();
      target.upper(k).row(l).setZero();
      target.columnBorder(k).row(l).setZero();
      target.diagonal(k)(l, l) = rowScale(dof);
    }
    for (int b = 0; b < Layout::kBorder; ++b)
      if (prescribed(Layout::borderDof(b))) target.rowBorder(k).row(b).setZero();
  }
};

}  // namespace beltsim
