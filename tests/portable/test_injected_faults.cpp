// Injected faults scheduled in time (system/injected_faults.hpp; docs/injected_faults.md): the
// level's shape, which pulley a friction fault reaches, what the schedule refuses, and that a drive
// is touched only where and when a coefficient changes. Every target: the schedule runs in the
// firmware's plant, so its values print as bits.
#include <cmath>

#include "beltsim/system/injected_faults.hpp"
#include "minitest.hpp"

using namespace beltsim;

namespace {

InjectedFault wetPulley(int pulley, double start, double ramp, double value) {
  InjectedFault f;
  f.kind = InjectedFaultKind::kFriction;
  f.pulley = pulley;
  f.start = start;
  f.ramp = ramp;
  f.value = value;
  return f;
}

// A drive that records what it was told (the applier only needs setFriction(friction, pulley)).
struct RecordingDrive {
  int calls = 0, stiffnessCalls = 0;
  int lastPulley = -2;
  double mu[3] = {0.5, 0.5, 0.5};
  double EA = 8000.0;  // N
  ParameterError setAxialStiffness(double value) {
    ++stiffnessCalls;
    EA = value;
    return ParameterError::success();
  }
  ParameterError setFriction(const FrictionParameters& friction, int pulley) {
    ++calls;
    lastPulley = pulley;
    mu[pulley] = friction.frictionCoefficient;
    return ParameterError::success();
  }
  int armCalls = 0, dragCalls = 0;
  double armFactor[3] = {1.0, 1.0, 1.0};
  double dragTorque[3] = {}, dragViscous[3] = {};
  ParameterError setArmStiffnessFactor(int pulley, double factor) {
    ++armCalls;
    armFactor[pulley] = factor;
    return ParameterError::success();
  }
  ParameterError setBearingDrag(int pulley, double torque, double viscous) {
    ++dragCalls;
    dragTorque[pulley] = torque;
    dragViscous[pulley] = viscous;
    return ParameterError::success();
  }
};

// Three pulleys: a speed-driven crank, a free idler, a tensioner arm.
struct ThreePulleys {
  PulleyParameters circle[3];
  ThreePulleys() {
    circle[0].kind = PulleyKind::kSpeedDriven;
    circle[1].kind = PulleyKind::kFixedAxis;
    circle[2].kind = PulleyKind::kTensionerArm;
  }
};

// Pulley 2's spring to half from 1.0 s, pulley 1's bearing dragging 2 N m and 0.01 N m s/rad from
// 1.0 s (ramps 0.1 s).
InjectedFaultSchedule tiredSpringAndDraggingIdler() {
  InjectedFaultSchedule s;
  s.fault[0] = wetPulley(2, 1.0, 0.1, 0.5);
  s.fault[0].kind = InjectedFaultKind::kTensionerSpring;
  s.fault[1] = wetPulley(1, 1.0, 0.1, 2.0);
  s.fault[1].kind = InjectedFaultKind::kBearingDrag;
  s.fault[1].viscous = 0.01;
  s.count = 2;
  return s;
}

}  // namespace

MT_TEST(level_rises_over_the_ramp_holds_and_falls_after_the_end) {
  // A half cosine from 0 at start to 1 at start + ramp; 1 until end; back to 0 at end + ramp.
  InjectedFault f = wetPulley(0, 1.0, 0.1, 0.3);
  f.hasEnd = true;
  f.end = 2.0;
  MT_EXPECT_NEAR(f.level(0.5), 0.0, 0.0);
  MT_EXPECT_NEAR(f.level(1.0), 0.0, 0.0);
  MT_EXPECT_NEAR(f.level(1.05), 0.5, 1e-15);  // the cosine's middle
  MT_EXPECT_NEAR(f.level(1.1), 1.0, 0.0);
  MT_EXPECT_NEAR(f.level(1.7), 1.0, 0.0);
  MT_EXPECT_NEAR(f.level(2.05), 0.5, 1e-14);  // 2.05 - 2.0 is not 0.05 exactly
  MT_EXPECT_NEAR(f.level(2.1), 0.0, 0.0);
  MT_EXPECT_NEAR(f.level(3.0), 0.0, 0.0);
  // Continuous: the steepest slope of the half cosine is pi / (2 ramp), so samples dt apart
  // differ by at most pi dt / (2 ramp).
  const double dt = 1e-4, bound = 3.14159265358979 * dt / (2.0 * 0.1) * (1.0 + 1e-9);
  double before = f.level(0.9), steepest = 0.0;
  for (int i = 1; i <= 15000; ++i) {
    const double now = f.level(0.9 + i * dt);
    const double jump = now > before ? now - before : before - now;
    if (jump > steepest) steepest = jump;
    before = now;
  }
  MT_EXPECT(steepest <= bound);
  MT_EXPECT(steepest > 0.9 * bound);
}

MT_TEST(friction_fault_blends_the_nominal_and_its_value_on_its_pulley_only) {
  // mu = nominal + level (value - nominal); other pulleys keep the nominal; pulley -1: all.
  InjectedFaultSchedule s;
  s.fault[0] = wetPulley(0, 1.0, 0.1, 0.3);
  s.count = 1;
  MT_EXPECT_NEAR(s.frictionCoefficient(0, 0.9, 0.5), 0.5, 0.0);
  MT_EXPECT_NEAR(s.frictionCoefficient(0, 1.05, 0.5), 0.4, 1e-15);
  MT_EXPECT_NEAR(s.frictionCoefficient(0, 1.5, 0.5), 0.3, 0.0);
  MT_EXPECT_NEAR(s.frictionCoefficient(1, 1.5, 0.5), 0.5, 0.0);
  s.fault[0].pulley = -1;
  MT_EXPECT_NEAR(s.frictionCoefficient(1, 1.5, 0.5), 0.3, 0.0);
  MT_EXPECT_NEAR(s.frictionCoefficient(2, 1.5, 0.5), 0.3, 0.0);
}

MT_TEST(schedule_refuses_overlaps_bad_numbers_and_pulleys_the_drive_lacks) {
  InjectedFaultSchedule s;
  s.fault[0] = wetPulley(0, 1.0, 0.1, 0.3);
  s.fault[0].hasEnd = true;
  s.fault[0].end = 2.0;  // the level is back to 0 at 2.1 s
  s.fault[1] = wetPulley(0, 2.1, 0.1, 0.2);
  s.count = 2;
  MT_EXPECT(s.validate(2).ok());           // one after the other on P1
  s.fault[1].start = 2.05;                 // P1 changed by both at 2.05-2.1 s
  MT_EXPECT(!s.validate(2).ok());
  s.fault[1].pulley = 1;                   // P2: another target
  MT_EXPECT(s.validate(2).ok());
  s.fault[0].pulley = -1;                  // every pulley, P2 included
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0].pulley = 0;
  MT_EXPECT(!s.validate(1).ok());          // a drive of one pulley has no P2
  s.fault[1].ramp = 0.0;
  MT_EXPECT(!s.validate(2).ok());
  s.fault[1].ramp = 0.1;
  s.fault[1].value = -0.1;
  MT_EXPECT(!s.validate(2).ok());
  s.fault[1].value = 0.0 / (s.fault[1].ramp - 0.1);  // NaN
  MT_EXPECT(!s.validate(2).ok());
  s.fault[1].value = 0.2;
  s.fault[0].end = 1.05;                   // ends before its ramp is done
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0].end = 2.0;
  s.count = kMaxInjectedFaults + 1;
  MT_EXPECT(!s.validate(2).ok());
}

MT_TEST(applier_touches_the_drive_only_where_and_when_a_coefficient_changes) {
  FrictionParameters nominal;
  nominal.frictionCoefficient = 0.5;
  RecordingDrive drive;
  InjectedFaultApplier<3> none;
  MT_EXPECT(none.setUp(InjectedFaultSchedule{}, nominal, 8000.0, ThreePulleys().circle, 3).ok());
  for (int i = 0; i < 100; ++i) MT_EXPECT(none.applyAt(drive, 0.1 * i).ok());
  MT_EXPECT(drive.calls == 0 && drive.stiffnessCalls == 0 && drive.armCalls == 0 && drive.dragCalls == 0);  // no faults: the drive keeps its bits

  InjectedFaultSchedule s;
  s.fault[0] = wetPulley(1, 1.0, 0.1, 0.3);
  s.count = 1;
  InjectedFaultApplier<3> applier;
  MT_EXPECT(applier.setUp(s, nominal, 8000.0, ThreePulleys().circle, 3).ok());
  MT_EXPECT(applier.applyAt(drive, 0.5).ok());
  MT_EXPECT(drive.calls == 0);             // before the fault
  MT_EXPECT(applier.applyAt(drive, 1.05).ok());
  MT_EXPECT(drive.calls == 1 && drive.lastPulley == 1);
  MT_EXPECT_NEAR(drive.mu[1], 0.4, 1e-15);
  MT_EXPECT(applier.applyAt(drive, 1.2).ok());
  MT_EXPECT(applier.applyAt(drive, 1.3).ok());  // unchanged at 0.3: not set again
  MT_EXPECT(drive.calls == 2);
  MT_EXPECT_NEAR(drive.mu[0], 0.5, 0.0);
  MT_EXPECT_NEAR(drive.mu[1], 0.3, 0.0);
  MT_EXPECT_NEAR(applier.frictionCoefficient(1), 0.3, 0.0);
  MT_EXPECT(applier.activeMask(1.3) == 1u && applier.activeMask(0.5) == 0u);
  // A tunable coefficient changed on every pair (the FMU's friction_coefficient): the fault acts
  // on the new nominal value from the next step.
  nominal.frictionCoefficient = 0.6;
  applier.setNominal(nominal);
  MT_EXPECT(applier.applyAt(drive, 1.4).ok());
  MT_EXPECT(drive.calls == 3);
  MT_EXPECT_NEAR(drive.mu[1], 0.3, 0.0);

  minitest::print("BITS injected_friction_mid_ramp ");
  minitest::printHexBits(s.frictionCoefficient(1, 1.0377, 0.5));
  minitest::print("\n");
}

MT_TEST(belt_stiffness_fault_scales_the_belts_axial_stiffness_alone) {
  // EA = nominal (1 + level (value - 1)) on the whole belt; the friction stays untouched; a
  // stiffness fault names no pulley and keeps its fraction in (0, 1].
  InjectedFaultSchedule s;
  s.fault[0] = wetPulley(-1, 1.0, 0.1, 0.8);
  s.fault[0].kind = InjectedFaultKind::kBeltStiffness;
  s.count = 1;
  MT_EXPECT(s.validate(2).ok());
  MT_EXPECT_NEAR(s.axialStiffnessFactor(0.9), 1.0, 0.0);
  MT_EXPECT_NEAR(s.axialStiffnessFactor(1.05), 0.9, 1e-15);
  MT_EXPECT_NEAR(s.axialStiffnessFactor(2.0), 0.8, 0.0);
  MT_EXPECT_NEAR(s.frictionCoefficient(0, 2.0, 0.5), 0.5, 0.0);
  FrictionParameters nominal;
  nominal.frictionCoefficient = 0.5;
  RecordingDrive drive;
  InjectedFaultApplier<2> applier;
  MT_EXPECT(applier.setUp(s, nominal, 8000.0, ThreePulleys().circle, 2).ok());
  MT_EXPECT(applier.applyAt(drive, 0.5).ok());
  MT_EXPECT(drive.stiffnessCalls == 0);
  MT_EXPECT(applier.applyAt(drive, 2.0).ok());
  MT_EXPECT(applier.applyAt(drive, 2.1).ok());
  MT_EXPECT(drive.stiffnessCalls == 1 && drive.calls == 0);
  MT_EXPECT_NEAR(drive.EA, 6400.0, 0.0);
  MT_EXPECT_NEAR(applier.axialStiffness(), 6400.0, 0.0);
  s.fault[0].pulley = 0;  // a pulley's belt stiffness means nothing
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0].pulley = -1;
  s.fault[0].value = 1.2;  // a stiffer belt is no fault
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0].value = 0.0;
  MT_EXPECT(!s.validate(2).ok());
}

MT_TEST(tensioner_and_bearing_faults_name_a_pulley_that_has_what_they_change) {
  // docs/injected_faults.md: tensioner_spring on a tensioner arm only; bearing_drag on a pulley
  // whose rotation is free (not speed-driven, not fixed); both name their pulley.
  const ThreePulleys drive;
  InjectedFaultSchedule s = tiredSpringAndDraggingIdler();
  MT_EXPECT(s.validate(3).ok() && s.validateTargets(drive.circle, 3).ok());
  s.fault[0].pulley = 1;  // a spring fault on a pulley without an arm
  MT_EXPECT(s.validate(3).ok() && !s.validateTargets(drive.circle, 3).ok());
  s.fault[0].pulley = -1;  // every pulley: not for these kinds
  MT_EXPECT(!s.validate(3).ok());
  s.fault[0].pulley = 2;
  s.fault[1].pulley = 0;  // a drag on the speed-driven crank
  MT_EXPECT(!s.validateTargets(drive.circle, 3).ok());
  s.fault[1].pulley = 1;
  s.fault[0].value = 0.0;  // a spring lost entirely: the arm would have no rest
  MT_EXPECT(!s.validate(3).ok());
  s.fault[0].value = 1.5;  // a stiffer spring is no fault
  MT_EXPECT(!s.validate(3).ok());
  s.fault[0].value = 0.5;
  s.fault[1].viscous = -0.01;
  MT_EXPECT(!s.validate(3).ok());
  s.fault[1].viscous = 0.0;
  s.fault[0].viscous = 0.01;  // only a drag has a viscous part
  MT_EXPECT(!s.validate(3).ok());
}

MT_TEST(applier_ramps_a_spring_factor_and_a_bearing_drag_with_the_level) {
  // factor = 1 + level (value - 1); drag torque = level value, viscous = level viscous.
  InjectedFaultSchedule s = tiredSpringAndDraggingIdler();
  s.fault[1].hasEnd = true;
  s.fault[1].end = 2.0;
  FrictionParameters nominal;
  RecordingDrive drive;
  InjectedFaultApplier<3> applier;
  MT_EXPECT(applier.setUp(s, nominal, 8000.0, ThreePulleys().circle, 3).ok());
  MT_EXPECT(applier.applyAt(drive, 0.9).ok());
  MT_EXPECT(drive.armCalls == 0 && drive.dragCalls == 0);
  MT_EXPECT(applier.applyAt(drive, 1.05).ok());  // mid-ramp: level 0.5
  MT_EXPECT_NEAR(drive.armFactor[2], 0.75, 1e-15);
  MT_EXPECT_NEAR(drive.dragTorque[1], 1.0, 1e-14);
  MT_EXPECT_NEAR(drive.dragViscous[1], 0.005, 1e-17);
  MT_EXPECT(applier.applyAt(drive, 1.5).ok());
  MT_EXPECT(applier.applyAt(drive, 1.6).ok());  // unchanged: not set again
  MT_EXPECT(drive.armCalls == 2 && drive.dragCalls == 2);
  MT_EXPECT_NEAR(drive.armFactor[2], 0.5, 0.0);
  MT_EXPECT_NEAR(drive.dragTorque[1], 2.0, 0.0);
  MT_EXPECT(applier.applyAt(drive, 2.5).ok());  // the drag ended, the spring stays tired
  MT_EXPECT_NEAR(drive.dragTorque[1], 0.0, 0.0);
  MT_EXPECT_NEAR(drive.dragViscous[1], 0.0, 0.0);
  MT_EXPECT_NEAR(drive.armFactor[2], 0.5, 0.0);
  MT_EXPECT(drive.armFactor[0] == 1.0 && drive.armFactor[1] == 1.0 && drive.dragTorque[0] == 0.0);
}

MT_TEST(tuning_a_table_ramps_its_gate_and_its_value_from_where_they_are) {
  // InjectedFault::tune (the FMU's fault<k>.active and fault<k>.value): from the time of the tune,
  // the gate on the level and the value each move from where they are to the new setting over the
  // table's ramp along the same half cosine (an untouched table keeps the schedule's bits: the
  // goldens of every faulted run).
  InjectedFaultSchedule s;
  s.fault[0] = wetPulley(0, 1.0, 0.1, 0.3);  // mu 0.5 -> 0.3 from 1.0 s
  s.count = 1;
  MT_EXPECT(s.tune(0, 0.5, true, 0.3).ok());  // what it already is: no change at all
  MT_EXPECT(!s.fault[0].tuned);
  MT_EXPECT(!s.tune(0, 0.5, true, -0.2).ok());  // outside the kind's range
  MT_EXPECT(!s.tune(1, 0.5, true, 0.3).ok());   // no such table
  MT_EXPECT(!s.fault[0].tuned && s.fault[0].value == 0.3);
  // A timeline sampled every 1e-4 s with the tunes where they fall: the value 0.3 -> 0.4 at 1.5 s,
  // changed again half way (0.2 at 1.55 s, from the 0.35 it has then), off at 2.0 s, on again at
  // 2.03 s while falling. No sample may jump by more than the steepest half cosine allows: a
  // change of at most 0.3 over the 0.1 s ramp, pi / 2 * 0.3 / 0.1 per second.
  const double h = 1e-4, bound = 1.5707963267948966 * 0.3 / 0.1 * h * (1.0 + 1e-9);
  double before = s.frictionCoefficient(0, 1.4, 0.5), steepest = 0.0;
  for (int i = 1; i <= 10000; ++i) {
    const double t = 1.4 + h * i;
    if (i == 1000) MT_EXPECT(s.tune(0, t, true, 0.4).ok());   // 1.5 s
    if (i == 1500) {                                           // 1.55 s
      MT_EXPECT_NEAR(s.fault[0].amount(t), 0.35, 1e-12);
      MT_EXPECT(s.tune(0, t, true, 0.2).ok());
      MT_EXPECT_NEAR(s.fault[0].amount(t), 0.35, 1e-12);       // from where it was, not from 0.4
    }
    if (i == 6000) MT_EXPECT(s.tune(0, t, false, 0.2).ok());  // 2.0 s
    if (i == 6300) {                                           // 2.03 s: the gate falling
      MT_EXPECT_NEAR(s.fault[0].gate(t), 1.0 - 0.5 * (1.0 - detmath::cos(detmath::kPi * 0.3)), 1e-9);
      MT_EXPECT(s.tune(0, t, true, 0.2).ok());
    }
    const double now = s.frictionCoefficient(0, t, 0.5);
    steepest = std::fabs(now - before) > steepest ? std::fabs(now - before) : steepest;
    before = now;
    if (i == 2500) MT_EXPECT_NEAR(now, 0.2, 0.0);                      // 1.65 s: the second value
    if (i == 6299) MT_EXPECT(now > 0.2 && now < 0.5);                   // on its way out
    if (i == 7300) MT_EXPECT_NEAR(now, 0.2, 0.0);                      // 2.13 s: back on
    if (i == 7300) MT_EXPECT_NEAR(s.currentValue(0, t, 0.5), 0.2, 0.0);
  }
  MT_EXPECT(steepest > 0.0 && steepest <= bound);
  // A stepped kind switches at once: a stuck encoder switched off reads free from the next step.
  InjectedFault stuck = wetPulley(1, 1.0, 0.0, 0.0);
  stuck.kind = InjectedFaultKind::kEncoderStuck;
  stuck.tune(1.5, false, 0.0);
  MT_EXPECT(stuck.level(1.4) == 1.0 && stuck.level(1.5) == 1.0 && stuck.level(1.5001) == 0.0);
}
