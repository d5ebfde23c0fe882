// The coupling of an eulerian mesh's moving stations to the drive's unknowns
// (docs/model_moving_stations.md): the pulleys whose centres move, each part's stretch kappa_j(c)
// with its rate and acceleration, its derivative d kappa_j / d c by each moving centre, and each
// node's g_i = (dP_i / dc)^T t_i (moving_stations.hpp gives the geometry). From these it adds to
// the residual the moving centres' rows (the parts' kappa rows times d kappa_j / d c, the nodes'
// tangential forces times g_i) and the nodes' station rates, and to the Newton matrix the
// couplings of a stretched element, of a pair and of a node row with the centres.
//
// The eulerian drive (eulerian_belt_drive.hpp) owns one and calls it where its residual and its
// assembly meet a moving centre. The Newton entries go out through callables the drive passes
// (`add`: its own addEntry, whose node rows come back to spreadNodeEntry; `addVelocityRow`: the
// matrix's velocity rows), so that the matrix keeps its rows along the nodes' tangents; nothing
// here changes between those calls but the parts' assembled kappa rows.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/element/part_stretch.hpp"
#include "beltsim/system/drive_layout.hpp"
#include "beltsim/system/drive_parameters.hpp"
#include "beltsim/system/moving_stations.hpp"

namespace beltsim {

template <int NE, int NP>
class EulerianStationMotion {
  using Layout = DriveLayout<NE, NP>;
  static constexpr int pulleyDof(int p, int local) { return Layout::pulleyDof(p, local); }

 public:
  static constexpr int kMaxParts = 2 * NP;
  using Tangents = Vector2[NE];

  // The path as drawn, the elements of each of its parts (eulerianStations), every element's
  // length and every pulley's kind: the pulleys whose centres move are those of movingCentre.
  ParameterError setUp(const BeltPath<NP>& drawn, const int (&elementsInPart)[kMaxParts], const double (&lengths)[NE],
                       const PulleyKind* kinds, int pulleyCount) {
    const ParameterError error = stations_.setUp(drawn, elementsInPart, lengths);
    if (!error.ok()) return error;
    movingCount_ = 0;
    for (int p = 0; p < pulleyCount; ++p)
      if (movingCentre(kinds[p])) movingPulley_[movingCount_++] = p;
    return ParameterError::success();
  }
  bool anyMoving() const { return movingCount_ > 0; }
  const MovingStations<NE, NP>& stations() const { return stations_; }
  int partOf(int e) const { return stations_.partOf(e); }
  const PartStretch& partStretch(int part) const { return partStretch_[part]; }

  // The nodes' stations at the static solve's locked centres: the nodes' static rows hold them there.
  // Centres the path cannot pass keep the last locks (the static solve's residual then faults on
  // the same centres, update's kDegenerateState).
  void lockAt(const Vector2 (&centre)[NP]) {
    if (stations_.evaluate(centre) == Status::kOk)
      for (int i = 0; i < NE; ++i) lockPosition_[i] = stations_.position(i);
  }

  // The stations at the centres c (every pulley's; rate and acceleration: the moving pulleys',
  // in the order of movingPulley, acceleration nullptr: 0): every part's stretch kappa_j with its
  // rate and acceleration, d kappa_j / d c of every moving centre, and every node's g_i by it along
  // its tangent t_i. kDegenerateState if a part is shorter than half or longer than twice its
  // drawn length: the layout has moved further than the mesh can follow.
  Status update(const Vector2 (&centre)[NP], const Vector2 (&rate)[NP], const Vector2* acceleration,
                const Tangents& tangent) {
    const Status s = stations_.evaluate(centre);
    if (s != Status::kOk) return s;
    for (int j = 0; j < stations_.partCount(); ++j) {
      PartStretch& st = partStretch_[j];
      st = PartStretch{};
      st.kappa = stations_.stretch(j);
      if (!(st.kappa >= 0.5 && st.kappa <= 2.0)) return Status::kDegenerateState;
      const double inverse = 1.0 / stations_.drawnPartLength(j);
      for (int m = 0; m < movingCount_; ++m) {
        kappaBy_[j][m] = inverse * stations_.partLengthByCentre(j, movingPulley_[m]);
        st.rate += kappaBy_[j][m].dot(rate[m]);
        if (acceleration == nullptr) continue;
        st.acceleration += kappaBy_[j][m].dot(acceleration[m]);
        for (int n = 0; n < movingCount_; ++n)
          st.acceleration +=
              inverse * rate[m].dot(stations_.partLengthByCentres(j, movingPulley_[m], movingPulley_[n]) * rate[n]);
      }
    }
    for (int i = 0; i < NE; ++i)
      for (int m = 0; m < movingCount_; ++m)
        stationBy_[i][m] = stations_.positionByCentre(i, movingPulley_[m]).transpose() * tangent[i];
    return Status::kOk;
  }
  // The moving pulleys' centres, in the order update takes their rates.
  int movingCount() const { return movingCount_; }
  int movingPulley(int m) const { return movingPulley_[m]; }

  // ---- the residual ----------------------------------------------------------------------------
  // The moving centres' rows in r: each part's kappa row times d kappa_j / d c and each node's
  // tangential force t_i.R_i times g_i; stationMotion: every node's station rate g_i.c_dot (static:
  // its station's move from the locks, t_i.(P_i - P_i,lock)); centreRate as update's rate.
  template <class Residual>
  void addRows(const Vector2 (&centreRate)[NP], bool isStatic, const Tangents& t, const Vector2 (&nodeForce)[NE],
               const double (&kappaRows)[kMaxParts], Residual& r, double (&stationMotion)[NE]) const {
    for (int m = 0; m < movingCount_; ++m) {
      const int p = movingPulley_[m];
      Vector2 sum = Vector2::Zero();
      for (int j = 0; j < stations_.partCount(); ++j) sum += kappaRows[j] * kappaBy_[j][m];
      for (int i = 0; i < NE; ++i) sum += t[i].dot(nodeForce[i]) * stationBy_[i][m];
      r(pulleyDof(p, 0)) += sum(0);
      r(pulleyDof(p, 1)) += sum(1);
    }
    for (int i = 0; i < NE; ++i) {
      stationMotion[i] = 0.0;
      if (isStatic) {
        stationMotion[i] = t[i].dot(stations_.position(i) - lockPosition_[i]);
        continue;
      }
      for (int m = 0; m < movingCount_; ++m) stationMotion[i] += stationBy_[i][m].dot(centreRate[m]);
    }
  }

  // ---- the Newton matrix -------------------------------------------------------------------------
  // A build begins: no part's kappa row is assembled yet.
  void beginAssembly() {
    for (double& k : assembledKappaRows_) k = 0.0;
  }
  // An entry (row, col, value) of a node's rows (a layout row below 4 NE, its x or y): its
  // tangential part also goes to the moving centres' rows, weighted by g_i (the residual's sum of
  // g_i t_i.R_i). add(row, col, value) takes them.
  template <class Add>
  void spreadNodeEntry(int row, int col, double value, const Tangents& tangent, Add&& add) const {
    if (row >= 4 * NE || row % 4 > 1) return;
    const int i = row / 4;
    const double tangential = tangent[i](row % 4) * value;
    for (int m = 0; m < movingCount_; ++m)
      for (int l = 0; l < 2; ++l)
        if (stationBy_[i][m](l) != 0.0) add(pulleyDof(movingPulley_[m], l), col, stationBy_[i][m](l) * tangential);
  }
  // A stretched element's coupling with the centres, from its block b over (q 8, pA, pB, kappa)
  // (EulerianMesh::stretchedBlock) at the system's indices `index` (q 8, pA, pB): its kappa column
  // and row through d kappa / d c, the node's velocity row by the centres (-m g_i, through
  // addVelocityRow(e, col, value)), and its kappa row kept for addCentreCurvature.
  template <class Add, class AddVelocityRow>
  void addStretchedElement(int e, const Eigen::Matrix<double, 11, 11>& b, double kappaRow, double lumpedNodeMass,
                           const int (&index)[13], Add&& add, AddVelocityRow&& addVelocityRow) {
    const int part = stations_.partOf(e);
    assembledKappaRows_[part] += kappaRow;
    addThroughStretch<10>(
        part, index, [&b](int i) { return b(i, 10); }, [&b](int i) { return b(10, i); }, b(10, 10), add,
        [&](int m, int l, int col) { addVelocityRow(e, col, -lumpedNodeMass * stationBy_[e][m](l)); });
  }
  // A pair's coupling with its part's stretch (EulerianBeltDrive's pairBlock) over the pair's 13
  // system indices: its kappa column and row and their corner through d kappa / d c; its kappa
  // row kept for addCentreCurvature.
  template <class Add>
  void addPair(int e, const Eigen::Matrix<double, 13, 1>& column, const Eigen::Matrix<double, 13, 1>& row,
               double corner, double kappaRow, const int (&index)[13], Add&& add) {
    const int part = stations_.partOf(e);
    assembledKappaRows_[part] += kappaRow;
    addThroughStretch<13>(
        part, index, [&column](int i) { return column(i); }, [&row](int i) { return row(i); }, corner, add,
        [](int, int, int) {});
  }
  // c_q E_kappa,j d2 kappa_j / dc dc of each part of the first 2 pulleyCount (its elements' and
  // pairs' kappa rows as the assembly took them; the nodes' f_t d g_i / d c left out).
  template <class Add>
  void addCentreCurvature(int pulleyCount, double stiffnessFactor, Add&& add) const {
    for (int j = 0; j < 2 * pulleyCount; ++j) {
      const double w = stiffnessFactor * assembledKappaRows_[j] / stations_.drawnPartLength(j);
      for (int m = 0; m < movingCount_; ++m)
        for (int n = 0; n < movingCount_; ++n) {
          const Eigen::Matrix2d h = stations_.partLengthByCentres(j, movingPulley_[m], movingPulley_[n]);
          for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) add(pulleyDof(movingPulley_[m], a), pulleyDof(movingPulley_[n], b), w * h(a, b));
        }
    }
  }

 private:
  // A kappa column (column(i), i < N, at the rows `index`), its row (row(i)) and their corner,
  // through d kappa_part / d c into the moving centres' columns and rows; before(m, l, col) first,
  // for each centre coordinate, whether or not the part depends on it.
  template <int N, class Column, class Row, class Add, class Before>
  void addThroughStretch(int part, const int (&index)[13], const Column& column, const Row& row, double corner,
                         Add& add, Before&& before) const {
    for (int m = 0; m < movingCount_; ++m)
      for (int l = 0; l < 2; ++l) {
        const int col = pulleyDof(movingPulley_[m], l);
        const double w = kappaBy_[part][m](l);
        before(m, l, col);
        if (w == 0.0) continue;
        for (int i = 0; i < N; ++i) {
          add(index[i], col, w * column(i));
          add(col, index[i], w * row(i));
        }
        for (int n = 0; n < movingCount_; ++n)
          for (int r = 0; r < 2; ++r) add(col, pulleyDof(movingPulley_[n], r), w * kappaBy_[part][n](r) * corner);
      }
  }

  MovingStations<NE, NP> stations_;
  int movingCount_ = 0;
  int movingPulley_[NP] = {};
  PartStretch partStretch_[kMaxParts];
  Vector2 kappaBy_[kMaxParts][NP];  // d kappa_j / d c of each moving centre, 1/m
  Vector2 stationBy_[NE][NP];       // g_i of each moving centre
  Vector2 lockPosition_[NE];        // the nodes' stations at the static solve's locks
  double assembledKappaRows_[kMaxParts] = {};  // each part's kappa row as the last assembly took it
};

}  // namespace beltsim
