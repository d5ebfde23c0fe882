// Penalty contact between a circle (pulley, roll) and one ANCF cable element, with bristle
// friction and history variables (paper [P] Sects. 2.2-2.5; [D]; docs/model_contact.md §4, §5).
// One ContactPair per (element, circle). All forces are LHS quantities (docs/model_element.md §0.2): the belt
// receives -F physically, the circle +F_sum and the torque +T_sum.
//
// Phases of one time step:
//   beginStep()                  D0 := D
//   evaluateNewton()             forces with the history D frozen (no switching inside Newton)
//   postNewtonStep()             updates D from the converged state, returns e_PNS (N)
#pragma once
#include <cmath>
#include <cstdint>

#include "beltsim/contact/bounding_box.hpp"
#include "beltsim/contact/bristle_friction.hpp"
#include "beltsim/contact/carried_anchor.hpp"
#include "beltsim/contact/contact_parameters.hpp"
#include "beltsim/contact/pair_results.hpp"
#include "beltsim/contact/segment_geometry.hpp"
#include "beltsim/core/detmath.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/element/segment_marker.hpp"

namespace beltsim {

template <int MaxSegments = 4>
class ContactPair {
 public:
  static constexpr int kMaxSegments = MaxSegments;
  static constexpr int kLocalCoordinates = 11;  // 8 element + circle (x, y, phi)
  using Matrix11 = Eigen::Matrix<double, kLocalCoordinates, kLocalCoordinates>;
  using Vector11 = Eigen::Matrix<double, kLocalCoordinates, 1>;

  ParameterError setUp(const ContactParameters& parameters) {
    const ParameterError e = validateContactParameters<MaxSegments>(parameters);
    if (!e.ok()) return e;
    p_ = parameters;
    anchorlessRenewing_ = false;  // the reference stepping's view until a fixed-cost stepper prepares
    reset();
    return e;
  }
  // New friction parameters; the history, its start-of-step copy and the stepping's view stay.
  // Whether setFriction would take these friction parameters (it changes nothing otherwise).
  ParameterError checkFriction(const FrictionParameters& friction) const {
    ContactParameters changed = p_;
    changed.friction = friction;
    return validateContactParameters<MaxSegments>(changed);
  }
  ParameterError setFriction(const FrictionParameters& friction) {
    const ParameterError e = checkFriction(friction);
    if (!e.ok()) return e;
    p_.friction = friction;
    for (int i = 0; i < MaxSegments; ++i) decidedSwitches_[i] = 0;
    return e;
  }
  // History from the geometry of element coordinates (q, qDot) of the given length
  // (docs/model_start_and_benchmark.md §8.4): a segment in contact (g <= 0) sticks, anchored where it is; any other
  // is undefined. Also the start-of-step copy. An element whose segment points cannot be
  // computed keeps its history.
  void initializeHistory(const Eigen::Matrix<double, 8, 1>& q, const Eigen::Matrix<double, 8, 1>& qDot, double length,
                         const CircleState& circle) {
    SegmentPoints<MaxSegments> points;
    if (computeSegmentPoints(q, qDot, length, p_.segmentCount, p_.offset, points) != Status::kOk) return;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const SegmentKinematics k = segmentKinematics(p_, points, i, length, circle);
      SegmentHistory h;
      h.gap = k.geometry.gap;
      if (h.gap <= 0.0) {
        h.state = StickSlip::kStick;
        h.stickingPosition = k.stickingCoordinate;
      }
      current_[i] = h;
    }
    beginStep();
  }
  // Initial history [0.1, undefined, 0] (docs/model_contact.md §4.1, docs/model_differences.md §10.15).
  void reset() {
    for (int i = 0; i < MaxSegments; ++i) current_[i] = SegmentHistory{};
    beginStep();
  }
  const ContactParameters& parameters() const { return p_; }
  const SegmentHistory& history(int i) const { return current_[i]; }
  // Segment i's history as the fixed-cost stepping's decided forces and kept matrix take it:
  // D, with a segment renewing its anchor (renewsAnchor) as a contact without an anchor yet.
  SegmentHistory decidedHistory(int i) const { return decidedView(i, current_[i]); }
  // true (the fixed-cost stepping, BeltDrive::setAnchorlessRenewing): every Newton-phase force of
  // the pair takes the decided view, also in the iterations with frozen states and the
  // post-Newton pass, so that they match the kept matrix.
  void setAnchorlessRenewing(bool anchorless) { anchorlessRenewing_ = anchorless; }
  bool anchorlessRenewing() const { return anchorlessRenewing_; }
  const SegmentHistory& startOfStepHistory(int i) const { return startOfStep_[i]; }
  void setHistory(int i, const SegmentHistory& h) { current_[i] = h; }

  // An eulerian mesh's anchors carried within the step (carried_anchor.hpp), owned and kept
  // current by its drive (contact/carried_histories.hpp), which outlives the pair's use of them;
  // nullptr (a material mesh): none.
  void carryWith(const CarriedAnchor<MaxSegments>* carried) { carried_ = carried; }
  const CarriedAnchor<MaxSegments>* carried() const { return carried_; }
  // x_cur of segment i as its bristle sees it: the sticking coordinate, shifted on an eulerian
  // mesh by the carried anchor's motion within the step.
  double seenCoordinate(int i, double stickingCoordinate) const {
    return carried_ != nullptr ? carried_->seen(i, p_.segmentCount, stickingCoordinate) : stickingCoordinate;
  }

  void beginStep() {
    for (int i = 0; i < MaxSegments; ++i) {
      startOfStep_[i] = current_[i];
      decidedSwitches_[i] = 0;
    }
  }
  void rejectStep() {
    for (int i = 0; i < MaxSegments; ++i) current_[i] = startOfStep_[i];
  }
  // Whether the Newton-phase forces (evaluateNewton) of this pair read the same history as
  // `other`, an earlier copy of it: per segment the contact flag, the stick/slip state and, for a
  // sticking segment, its anchor. The post-Newton step rewrites every gap, but only its sign
  // reaches those forces.
  bool sameNewtonHistory(const SegmentHistory (&other)[MaxSegments]) const {
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const SegmentHistory& a = current_[i];
      const SegmentHistory& b = other[i];
      if ((a.gap <= 0.0) != (b.gap <= 0.0) || a.state != b.state) return false;
      if (a.state == StickSlip::kStick && !(a.stickingPosition == b.stickingPosition)) return false;
    }
    return true;
  }
  void copyHistory(SegmentHistory (&out)[MaxSegments]) const {
    for (int i = 0; i < MaxSegments; ++i) out[i] = current_[i];
  }
  bool anyFlagged() const {
    for (int i = 0; i < MaxSegments; ++i)
      if (i < p_.segmentCount && current_[i].gap <= 0.0) return true;
    return false;
  }

  // What the pair's Newton-phase Jacobian depends on besides the coordinates: per segment
  // whether it is flagged (gap <= 0) and its stick/slip state, 4 bits each. Two equal signatures
  // give Jacobians that differ only through the coordinates (and the friction force's size).
  // undefinedSticks = true: a flagged segment without a state yet counts as sticking (the kept
  // matrix of the fixed-cost stepping enters a new contact with the stick tangent).
  // decided = true: the states as the fixed-cost stepping's decided forces take them
  // (decidedHistory).
  std::uint64_t jacobianSignature(bool undefinedSticks = false, bool decided = false) const {
    static_assert(MaxSegments <= 16, "4 bits per segment in 64 bits");
    std::uint64_t signature = 0;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const bool flagged = current_[i].gap <= 0.0;
      StickSlip state = decided ? decidedView(i, current_[i]).state : current_[i].state;
      if (undefinedSticks && flagged && current_[i].state == StickSlip::kUndefined) state = StickSlip::kStick;
      const std::uint64_t nibble = (flagged ? 8u : 0u) | (static_cast<std::uint64_t>(static_cast<std::uint8_t>(state)) & 7u);
      signature |= nibble << (4 * i);
    }
    return signature;
  }

  // Newton-phase LHS forces with the history frozen (docs/model_contact.md §4.6, §4.8).
  Status evaluateNewton(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                        PairForces& out, PairKinematics<MaxSegments>* keep = nullptr) const {
    out = PairForces{};
    if (!anyFlagged()) return Status::kOk;
    SegmentShapeTable<MaxSegments> table;
    table.build(length, p_.segmentCount);
    return evaluateNewton(q, qDot, table, circle, out, keep);
  }

  // Same, with the shape functions from a table (built for this length and p.segmentCount).
  // keep (optional): receives the segment points and the evaluated segments' kinematics.
  // known (optional): what a post-Newton step at this same state computed (PostNewtonKeep); the
  // forces are those computed without it, bit for bit.
  Status evaluateNewton(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                        const CircleState& circle, PairForces& out, PairKinematics<MaxSegments>* keep = nullptr,
                        const PairKinematics<MaxSegments>* known = nullptr) const {
    out = PairForces{};
    if (!anyFlagged()) return Status::kOk;
    if (table.segmentCount != p_.segmentCount) return evaluateNewton(q, qDot, table.length, circle, out, keep);
    return forces(q, qDot, table, circle, nullptr, nullptr, out, keep, known);
  }

  // Whether the pair can touch the circle within this step: some segment's start-of-step gap (or
  // the bounding box's, a lower bound) is at most `margin` (m).
  bool candidate(double margin) const {
    for (int i = 0; i < MaxSegments; ++i)
      if (i < p_.segmentCount && startOfStep_[i].gap <= margin) return true;
    return false;
  }

  // The LHS forces with every segment's contact and stick/slip state decided at this point, by
  // the post-Newton step's own rule from the start-of-step history D0 (docs/model_contact.md §4.7): contact where
  // the gap is <= 0; stick where the bristle's linear force mu_v v_t + mu_k (x_cur - x_stick)
  // stays within mu |f_n|, else slip at mu |f_n|. The decided states become the current history D
  // (what the Newton matrix and its switch updates read). At a converged point the forces and
  // states are those of a converged post-Newton loop; the fixed-cost stepping uses it so that
  // stick/slip switches happen inside its Newton iterations instead of in passes around them.
  // keep (optional): as evaluateNewton's.
  Status evaluateDecided(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                         const CircleState& circle, PairForces& out, const PairKinematics<MaxSegments>* known = nullptr,
                         PairKinematics<MaxSegments>* keep = nullptr) {
    out = PairForces{};
    if (table.segmentCount != p_.segmentCount) return Status::kInvalidParameter;
    SegmentHistory decided[MaxSegments];
    for (int i = 0; i < MaxSegments; ++i) decided[i] = current_[i];
    const Status s = forces(q, qDot, table, circle, decided, decidedSwitches_, out, keep, known);
    for (int i = 0; i < MaxSegments; ++i) current_[i] = decided[i];
    return s;
  }
  // A segment whose stick/slip state has switched this many times within a step keeps its state
  // for the rest of the step's Newton iterations (the post-Newton pass decides it at the end):
  // without this, a segment at the edge of a slip arc can alternate at every iteration.
  static constexpr int kMaxDecidedSwitches = 2;

  // Post-Newton step (docs/model_contact.md §4.7, with the bounding-box rules of §5.6). Updates the current
  // history D from the converged state, reading anchors from D0. Returns e_PNS = e_n + e_t, the
  // sum over the segments (N).
  Status postNewtonStep(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                        double& error, const PostNewtonKeep<MaxSegments>& keep = {}) {
    SegmentShapeTable<MaxSegments> table;
    table.build(length, p_.segmentCount);
    return postNewtonStep(q, qDot, table, circle, error, nullptr, keep);
  }

  // Same, with the shape functions from a table (built for this length and p.segmentCount).
  // known (optional): what a Newton-phase evaluation at this same state computed (its points,
  // and the kinematics of its segments in contact); the rest is computed here, with the same bits.
  // keep (optional, pair_results.hpp): what it computed, for an eulerian mesh (the
  // contact coordinates it carries with the material, contact/carried_histories.hpp, and the
  // kinematics for the next residual at this state).
  Status postNewtonStep(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                        const CircleState& circle, double& error, const PairKinematics<MaxSegments>* known = nullptr,
                        const PostNewtonKeep<MaxSegments>& keep = {}) {
    error = 0.0;
    PairKinematics<MaxSegments>* kept = keep.kinematics;
    if (kept != nullptr)
      for (int i = 0; i < MaxSegments; ++i) kept->known[i] = kept->stickingKnown[i] = false;
    if (table.segmentCount != p_.segmentCount) return postNewtonStep(q, qDot, table.length, circle, error, keep);
    const double length = table.length;
    // A pair with a segment in contact takes the exact gaps below whatever its box says (a
    // segment leaving contact stores its exact gap, as the reference does); only the others
    // need the box.
    if (p_.useBoundingBox && !anyFlagged()) {
      BoundingBox box = elementBoundingBox(q, length);
      box.inflate(absOf(p_.offset) + kBoxMargin);
      if (box.separatedFromCircle(circle.centre, contactSurfaceRadius(p_))) {
        // Skipped pair: every gap is positive; store a positive surrogate (docs/model_contact.md §5.6).
        const double surrogate = boxDistance(box, circle.centre) - contactSurfaceRadius(p_);
        for (int i = 0; i < MaxSegments; ++i) {
          if (i >= p_.segmentCount) break;
          current_[i].gap = surrogate;
          current_[i].state = StickSlip::kUndefined;
          current_[i].heldByElement = false;
        }
        return Status::kOk;
      }
    }
    SegmentPoints<MaxSegments> localPoints;
    const SegmentPoints<MaxSegments>* pointsAt = nullptr;
    const Status pointStatus = segmentPoints(q, qDot, table, known, kept, localPoints, pointsAt);
    if (pointStatus != Status::kOk) return pointStatus;
    const SegmentPoints<MaxSegments>& points = *pointsAt;
    bool degenerate = false;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      SegmentKinematics k = known != nullptr && known->known[i] ? known->segment[i]
                                                                 : segmentKinematics(p_, points, i, length, circle, false);
      const double gap = k.geometry.gap;
      if (k.geometry.degenerate) degenerate = true;
      SegmentHistory& d = current_[i];
      const bool wasOpen = d.gap > 0.0;
      if ((gap > 0.0 && d.gap <= 0.0) || (gap <= 0.0 && d.gap > 0.0)) {
        error += p_.contactStiffness * absOf(gap - d.gap);  // e_n: gap sign changed
      }
      d.gap = gap;
      bool stickingKnown = known != nullptr && known->known[i] && known->stickingKnown[i];
      if (gap <= 0.0 && frictional()) {
        if (p_.friction.bristleStiffness != 0.0 && !stickingKnown) {
          k.stickingCoordinate = stickingCoordinate(p_, k.geometry, length, circle);
          stickingKnown = true;
        }
        const double fn = normalForceLaw(p_, gap, k.normalVelocity);
        const TangentialPnsResult t = pnsTangential(p_.friction, d, anchorSource(i), fn, k.tangentialVelocity,
                                                    seenCoordinate(i, k.stickingCoordinate), wrapPeriod());
        // e_t: the excess over mu |f_n| measures how far the force the Newton phase applied is from
        // the new state's. A segment that was not in contact applied none, so when it slips at once
        // (its velocity penalty beyond mu |f_n|, bristle_friction.hpp) the change is mu |f_n|, not
        // the excess: in gross slip the excess of a segment landing on the pulley is ~10 times that.
        error += wasOpen && isSlipping(t.state) ? p_.friction.frictionCoefficient * absOf(fn) : t.error;
        d.state = t.state;
        d.stickingPosition = t.stickingPosition;
        if (keep.contactCoordinate != nullptr)
          keep.contactCoordinate[i] = p_.friction.bristleStiffness != 0.0 ? k.stickingCoordinate : 0.0;
      } else {
        d.state = StickSlip::kUndefined;
      }
      d.heldByElement = heldAfterStep(i, gap <= 0.0);
      if (kept != nullptr) {
        kept->segment[i] = k;
        kept->known[i] = true;
        kept->stickingKnown[i] = stickingKnown;
      }
    }
    return degenerate ? Status::kDegenerateState : Status::kOk;
  }

  // Outputs per segment with the current history (docs/model_contact.md §4.10).
  Status outputs(const Vector8& q, const Vector8& qDot, double length, const CircleState& circle,
                 SegmentOutput (&out)[MaxSegments]) const {
    for (int i = 0; i < MaxSegments; ++i) out[i] = SegmentOutput{};
    SegmentPoints<MaxSegments> points;
    const Status s = computeSegmentPoints(q, qDot, length, p_.segmentCount, p_.offset, points);
    if (s != Status::kOk) return s;
    const double area = p_.beltWidth * length / p_.segmentCount;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      const SegmentKinematics k = segmentKinematics(p_, points, i, length, circle);
      out[i].gap = k.geometry.gap;
      out[i].state = current_[i].state;
      if (current_[i].gap > 0.0) continue;
      const double fn = normalForceLaw(p_, k.geometry.gap, k.normalVelocity);
      const SegmentHistory pulling = anchorlessRenewing_ ? decidedView(i, current_[i]) : current_[i];
      const double seen = seenCoordinate(i, k.stickingCoordinate);
      const double ft = newtonTangentialForce(p_.friction, pulling, fn, k.tangentialVelocity, seen, wrapPeriod());
      out[i].normalForce = fn;
      out[i].tangentialForce = ft;
      out[i].normalStress = fn / area;
      out[i].tangentialStress = ft / area;
      if (current_[i].state == StickSlip::kStick && p_.friction.bristleStiffness != 0.0) {
        out[i].stickingDisplacement =
            wrappedDifference(seen - pulling.stickingPosition, wrapPeriod());
      }
    }
    return Status::kOk;
  }

 private:
  // Forces of the segments in contact. decided == nullptr: the history D as it stands (Newton
  // phase, docs/model_contact.md §4.6). Otherwise each segment's state is decided here and written to decided[i]
  // (switches[i] counts its stick/slip switches within the step).
  // known: a post-Newton step's points and kinematics at this state (evaluateNewton).
  Status forces(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                const CircleState& circle, SegmentHistory* decided, std::uint8_t* switches, PairForces& out,
                PairKinematics<MaxSegments>* keep = nullptr, const PairKinematics<MaxSegments>* known = nullptr) const {
    const double length = table.length;
    if (keep != nullptr)
      for (int i = 0; i < MaxSegments; ++i) keep->known[i] = keep->stickingKnown[i] = false;
    SegmentPoints<MaxSegments> localPoints;
    const SegmentPoints<MaxSegments>* pointsAt = nullptr;
    const Status pointStatus = segmentPoints(q, qDot, table, known, keep, localPoints, pointsAt);
    if (pointStatus != Status::kOk) return pointStatus;
    const SegmentPoints<MaxSegments>& points = *pointsAt;
    Vector2 pointForce[MaxSegments + 1];
    for (int k = 0; k <= MaxSegments; ++k) pointForce[k].setZero();
    Vector2 forceSum = Vector2::Zero();
    double torqueSum = 0.0;
    for (int i = 0; i < MaxSegments; ++i) {
      if (i >= p_.segmentCount) break;
      SegmentHistory h = anchorlessRenewing_ ? decidedView(i, current_[i]) : current_[i];
      SegmentKinematics k;
      double fn = 0.0;
      if (decided == nullptr) {
        if (h.gap > 0.0) continue;
        k = kinematicsOf(points, known, i, length, circle, newtonForceNeedsStickingCoordinate(p_.friction, h));
        if (keep != nullptr) {
          keep->segment[i] = k;
          keep->known[i] = true;
          keep->stickingKnown[i] = newtonForceNeedsStickingCoordinate(p_.friction, h);
        }
        fn = normalForceLaw(p_, k.geometry.gap, k.normalVelocity);
      } else {
        k = kinematicsOf(points, known, i, length, circle, false);
        h = decideSegment(i, k, length, circle, switches[i], fn);
        decided[i] = h;
        if (h.gap > 0.0) continue;
      }
      const SegmentGeometry& g = k.geometry;
      if (g.degenerate) out.degenerate = true;
      // The fixed-cost stepping's decided forces: a renewing segment, anchored where each iteration
      // finds it, pulls with the velocity penalty alone (decidedView), as its kept matrix has it.
      const double ft = newtonTangentialForce(p_.friction, decided != nullptr ? decidedView(i, h) : h, fn,
                                              k.tangentialVelocity, seenCoordinate(i, k.stickingCoordinate),
                                              wrapPeriod());
      ++out.activeSegments;
      if (p_.useSegmentNormals) {
        const Vector2 f = fn * g.normal + ft * g.tangent;
        pointForce[i] += (1.0 - g.rho) * f;
        pointForce[i + 1] += g.rho * f;
        forceSum += f;
      } else {
        // Point-wise normals (docs/model_contact.md §4.8 PWN): each endpoint uses its own normal direction.
        const Vector2 fl = pointFrameForce(points.position[i], circle.centre, fn, ft);
        const Vector2 fr = pointFrameForce(points.position[i + 1], circle.centre, fn, ft);
        pointForce[i] += (1.0 - g.rho) * fl;
        pointForce[i + 1] += g.rho * fr;
        forceSum += (1.0 - g.rho) * fl + g.rho * fr;
      }
      torqueSum += p_.radius * ft;
    }
    for (int k = 0; k <= MaxSegments; ++k) {
      if (k > p_.segmentCount) break;
      addPointForce(table.shape[k], points.slope[k], points.tangent[k], points.slopeSquared[k], p_.offset,
                    pointForce[k], out.element);
    }
    out.circleForce = -forceSum;
    out.circleTorque = -torqueSum;
    return Status::kOk;
  }

  // The segment points at (q, q_dot): known's if given, else computed (into keep's if given,
  // else into local); keep receives them either way. `points` is set to where they are.
  Status segmentPoints(const Vector8& q, const Vector8& qDot, const SegmentShapeTable<MaxSegments>& table,
                       const PairKinematics<MaxSegments>* known, PairKinematics<MaxSegments>* keep,
                       SegmentPoints<MaxSegments>& local, const SegmentPoints<MaxSegments>*& points) const {
    if (known != nullptr) {
      if (keep != nullptr) keep->points = known->points;
      points = &known->points;
      return Status::kOk;
    }
    SegmentPoints<MaxSegments>& into = keep != nullptr ? keep->points : local;
    points = &into;
    return computeSegmentPoints(q, qDot, table, p_.offset, into);
  }

  // Segment i's kinematics as segmentKinematics gives them, from `known` where it has them.
  SegmentKinematics kinematicsOf(const SegmentPoints<MaxSegments>& points, const PairKinematics<MaxSegments>* known,
                                 int i, double length, const CircleState& circle, bool needSticking) const {
    if (known == nullptr || !known->known[i]) return segmentKinematics(p_, points, i, length, circle, needSticking);
    SegmentKinematics k = known->segment[i];
    if (!needSticking || p_.friction.bristleStiffness == 0.0)
      k.stickingCoordinate = 0.0;
    else if (!known->stickingKnown[i])
      k.stickingCoordinate = stickingCoordinate(p_, k.geometry, length, circle);
    return k;
  }

  // Contact and stick/slip state of segment i at kinematics k (evaluateDecided), by the
  // post-Newton step's rule from D0; fn is set if the segment is in contact. After
  // kMaxDecidedSwitches changes of either kind within the step the segment keeps the state it has
  // (a contact kept at a positive gap then pulls with the unclipped law, as a flagged segment does
  // in the reference's Newton phase): at the edge of a slip arc, or with a gap near 0, the state
  // can otherwise alternate at every iteration.
  SegmentHistory decideSegment(int i, SegmentKinematics& k, double length, const CircleState& circle,
                               std::uint8_t& switches, double& fn) const {
    const SegmentHistory& before = current_[i];
    SegmentHistory h = before;
    const double g = k.geometry.gap;
    bool contact = g <= 0.0;
    if (contact != (before.gap <= 0.0)) {
      if (switches >= kMaxDecidedSwitches) {
        contact = !contact;
      } else {
        ++switches;
      }
    }
    // The gap is the contact flag (<= 0: in contact): a kept state is stored at the nearest value.
    h.gap = contact ? (g < 0.0 ? g : 0.0) : (g > 0.0 ? g : kKeptOpenGap);
    h.state = StickSlip::kUndefined;
    h.heldByElement = heldAfterStep(i, contact);
    if (!contact) return h;
    fn = normalForceLaw(p_, g, k.normalVelocity);
    if (!frictional()) return h;
    if (p_.friction.bristleStiffness != 0.0) k.stickingCoordinate = stickingCoordinate(p_, k.geometry, length, circle);
    const TangentialPnsResult t = pnsTangential(p_.friction, h, anchorSource(i), fn, k.tangentialVelocity,
                                                seenCoordinate(i, k.stickingCoordinate), wrapPeriod());
    const bool switched = before.gap <= 0.0 && before.state != StickSlip::kUndefined && t.state != before.state;
    if (switched && switches >= kMaxDecidedSwitches) {
      h.state = before.state;
      h.stickingPosition = before.stickingPosition;
      return h;
    }
    if (switched) ++switches;
    h.state = t.state;
    h.stickingPosition = t.stickingPosition;
    return h;
  }
  static constexpr double kKeptOpenGap = 1e-12;  // m

  // What the post-Newton step of segment i reads its anchor from: D0 (docs/model_differences.md §10.18), or, for a
  // segment renewing its anchor (renewsAnchor), D0 without its anchor, so that the step anchors the
  // segment where it finds it.
  SegmentHistory anchorSource(int i) const {
    SegmentHistory s = startOfStep_[i];
    if (renewsAnchor(i)) s.state = StickSlip::kUndefined;
    return s;
  }
  // StickMemory::kWholeElement: segment i renews its anchor in this step if it stuck at the start
  // of the step, is not held (heldAfterStep) and its element was not wholly on the circle. Each
  // post-Newton step anchors it where it finds it. The reference stepping's Newton phase reads the
  // anchor the last post-Newton pass stored, as for any segment. The fixed-cost stepping decides
  // states in every Newton iteration, so there the segment is anchored where each iteration finds
  // it and pulls with the velocity penalty alone: its decided force, its kept matrix and that
  // matrix's signature take it as a contact without an anchor yet (decidedView).
  bool renewsAnchor(int i) const {
    const SegmentHistory& s = startOfStep_[i];
    return p_.friction.stickMemory == StickMemory::kWholeElement && s.state == StickSlip::kStick && s.gap <= 0.0 &&
           !s.heldByElement && !wholeElementAtStepStart();
  }
  SegmentHistory decidedView(int i, SegmentHistory h) const {
    if (h.state == StickSlip::kStick && renewsAnchor(i)) h.state = StickSlip::kUndefined;
    return h;
  }
  // StickMemory::kWholeElement: whether segment i keeps its anchors from the next step on. It is
  // held from the step its element lay wholly on the circle (every segment in contact at the step's
  // start) until it leaves contact: an element bending onto the circle renews its anchors, one
  // leaving it (at the end of a wrap, where the slip arc is) keeps them.
  bool heldAfterStep(int i, bool inContact) const {
    if (p_.friction.stickMemory != StickMemory::kWholeElement || !inContact) return false;
    return startOfStep_[i].heldByElement || wholeElementAtStepStart();
  }
  bool wholeElementAtStepStart() const {
    for (int j = 0; j < MaxSegments; ++j) {
      if (j >= p_.segmentCount) break;
      if (startOfStep_[j].gap > 0.0) return false;
    }
    return true;
  }

  bool frictional() const {
    return p_.friction.bristleStiffness != 0.0 || p_.friction.velocityPenalty != 0.0 ||
           p_.friction.law == TangentialLaw::kContinuous;
  }

  static constexpr double kBoxMargin = 1e-9;  // m, safety margin of the pre-check (docs/model_contact.md §5.4)

  double wrapPeriod() const { return 2.0 * detmath::kPi * p_.radius; }

  static double boxDistance(const BoundingBox& box, const Vector2& c) {
    const double dx = detail::larger(detail::larger(box.lower(0) - c(0), 0.0), c(0) - box.upper(0));
    const double dy = detail::larger(detail::larger(box.lower(1) - c(1), 0.0), c(1) - box.upper(1));
    return std::sqrt(dx * dx + dy * dy);
  }

  static Vector2 pointFrameForce(const Vector2& point, const Vector2& centre, double fn, double ft) {
    const Vector2 d = point - centre;
    const double len = d.norm();
    const Vector2 n = len > 0.0 ? Vector2(d / len) : Vector2(0.0, 1.0);
    return fn * n + ft * leftNormal(n);
  }

  ContactParameters p_;
  SegmentHistory current_[MaxSegments];      // D: read by Newton, written by the PNS only
  SegmentHistory startOfStep_[MaxSegments];  // D0: copy at the start of each step
  std::uint8_t decidedSwitches_[MaxSegments] = {};  // stick/slip switches of evaluateDecided this step
  bool anchorlessRenewing_ = false;                 // setAnchorlessRenewing
  const CarriedAnchor<MaxSegments>* carried_ = nullptr;  // carryWith (eulerian mesh only)
};

}  // namespace beltsim
