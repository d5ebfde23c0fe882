// Bad input at set-up (issue 4 "Bad input"; status.hpp): negative or NaN k_c, d_c, mu, mu_k, mu_v, r
// and n_cs outside [1, compile-time maximum] are rejected by ContactPair::setUp with a
// ParameterError that names the parameter; valid parameters are accepted.
#include <cstring>
#include <limits>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "minitest.hpp"

using beltsim::ContactPair;
using beltsim::ContactParameters;

namespace {

ContactParameters valid() {
  ContactParameters p;
  p.segmentCount = 4;
  p.contactStiffness = 4e5;
  p.contactDamping = 8.0;
  p.friction.frictionCoefficient = 0.5;
  p.friction.bristleStiffness = 5e5;
  p.friction.velocityPenalty = 30.0;
  p.radius = 0.09995;
  p.offset = -5e-5;
  return p;
}

bool rejectedAs(const ContactParameters& p, const char* name) {
  ContactPair<4> pair;
  const beltsim::ParameterError e = pair.setUp(p);
  return e.status == beltsim::Status::kInvalidParameter && std::strcmp(e.parameter, name) == 0;
}

// Sets one parameter (by index) to a value.
void setParameter(ContactParameters& p, int which, double value) {
  switch (which) {
    case 0: p.contactStiffness = value; break;
    case 1: p.contactDamping = value; break;
    case 2: p.friction.frictionCoefficient = value; break;
    case 3: p.friction.bristleStiffness = value; break;
    case 4: p.friction.velocityPenalty = value; break;
    default: p.radius = value; break;
  }
}
const char* const kNames[] = {"contactStiffness", "contactDamping", "frictionCoefficient",
                              "bristleStiffness", "velocityPenalty", "radius"};

}  // namespace

MT_TEST(valid_parameters_are_accepted) {
  ContactPair<4> pair;
  MT_EXPECT(pair.setUp(valid()).ok());
  ContactParameters zeroFriction = valid();  // all friction parameters 0 is a valid frictionless contact
  zeroFriction.friction = beltsim::FrictionParameters{};
  zeroFriction.contactDamping = 0.0;
  MT_EXPECT(pair.setUp(zeroFriction).ok());
}

// Each of k_c, d_c, mu, mu_k, mu_v, r negative is rejected, naming that parameter.
MT_TEST(negative_parameters_are_rejected_by_name) {
  for (int which = 0; which < 6; ++which) {
    ContactParameters p = valid();
    setParameter(p, which, -1e-3);
    MT_EXPECT(rejectedAs(p, kNames[which]));
  }
}

// Each of k_c, d_c, mu, mu_k, mu_v, r NaN (and +inf) is rejected, naming that parameter.
MT_TEST(nan_and_infinite_parameters_are_rejected_by_name) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (int which = 0; which < 6; ++which) {
    ContactParameters p = valid();
    setParameter(p, which, nan);
    MT_EXPECT(rejectedAs(p, kNames[which]));
    setParameter(p, which, inf);
    MT_EXPECT(rejectedAs(p, kNames[which]));
  }
}

// r = 0 is not a circle: rejected as "radius".
MT_TEST(zero_radius_is_rejected) {
  ContactParameters p = valid();
  p.radius = 0.0;
  MT_EXPECT(rejectedAs(p, "radius"));
}

// n_cs above the compile-time maximum (4 here; 12 in the reference) or below 1: "segmentCount".
MT_TEST(segment_count_outside_one_to_compile_time_maximum_is_rejected) {
  ContactParameters p = valid();
  p.segmentCount = 5;
  MT_EXPECT(rejectedAs(p, "segmentCount"));
  p.segmentCount = 0;
  MT_EXPECT(rejectedAs(p, "segmentCount"));
  p.segmentCount = -3;
  MT_EXPECT(rejectedAs(p, "segmentCount"));
  p.segmentCount = 13;
  ContactPair<12> large;
  MT_EXPECT(!large.setUp(p).ok() && std::strcmp(large.setUp(p).parameter, "segmentCount") == 0);
  p.segmentCount = 12;
  MT_EXPECT(large.setUp(p).ok());
}

// A rejected set-up leaves the pair's previous, valid parameters in place.
MT_TEST(rejected_setup_keeps_previous_parameters) {
  ContactPair<4> pair;
  MT_EXPECT(pair.setUp(valid()).ok());
  ContactParameters bad = valid();
  bad.friction.bristleStiffness = -5.0;
  MT_EXPECT(!pair.setUp(bad).ok());
  MT_EXPECT(pair.parameters().friction.bristleStiffness == 5e5);
}
