#include "scenario.hpp"

#include <cmath>
#include <set>
#include <sstream>

#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include "beltsim/paper_parameters.hpp"

namespace beltsim::host {

const std::vector<int>& supportedElementCounts() {
  static const std::vector<int> counts{24, 30, 60, 120, 240, 480};
  return counts;
}

namespace {

// Thrown inside this file only (host code): the first error ends parsing.
struct ScenarioError {
  std::string message;
};

std::string lineOf(const std::string& file, const toml::node& node) {
  std::ostringstream s;
  s << file << ":";
  if (node.source().begin.line > 0) {
    s << node.source().begin.line;
  } else {
    s << "--set";
  }
  return s.str();
}

[[noreturn]] void fail(const std::string& file, const toml::node& node, const std::string& key, const std::string& message) {
  throw ScenarioError{lineOf(file, node) + ": key '" + key + "': " + message};
}

// Reads the keys of one table, remembering which were used; unknown keys are errors.
class TableReader {
 public:
  TableReader(const std::string& file, const toml::table& table, std::string prefix)
      : file_(file), table_(table), prefix_(std::move(prefix)) {}

  std::string key(const std::string& name) const { return prefix_.empty() ? name : prefix_ + "." + name; }

  const toml::node* find(const std::string& name) {
    used_.insert(name);
    return table_.get(name);
  }

  void number(const std::string& name, double& out, double low, double high, bool lowOpen = false) {
    const toml::node* n = find(name);
    if (n == nullptr) return;
    double value;
    if (auto f = n->value_exact<double>()) {
      value = *f;
    } else if (auto i = n->value_exact<int64_t>()) {
      value = static_cast<double>(*i);
    } else {
      fail(file_, *n, key(name), "expected a number");
    }
    if (!std::isfinite(value)) fail(file_, *n, key(name), "must be finite");
    if ((lowOpen ? !(value > low) : !(value >= low)) || !(value <= high)) {
      std::ostringstream s;
      s << "out of range: " << value << " not in " << (lowOpen ? "(" : "[") << low << ", " << high << "]";
      fail(file_, *n, key(name), s.str());
    }
    out = value;
  }

  void integer(const std::string& name, int& out, int low, int high) {
    const toml::node* n = find(name);
    if (n == nullptr) return;
    auto i = n->value_exact<int64_t>();
    if (!i) fail(file_, *n, key(name), "expected an integer");
    if (*i < low || *i > high) {
      std::ostringstream s;
      s << "out of range: " << *i << " not in [" << low << ", " << high << "]";
      fail(file_, *n, key(name), s.str());
    }
    out = static_cast<int>(*i);
  }

  void boolean(const std::string& name, bool& out) {
    const toml::node* n = find(name);
    if (n == nullptr) return;
    auto b = n->value_exact<bool>();
    if (!b) fail(file_, *n, key(name), "expected true or false");
    out = *b;
  }

  std::string text(const std::string& name, const std::string& fallback, const std::set<std::string>& allowed) {
    const toml::node* n = find(name);
    if (n == nullptr) return fallback;
    auto s = n->value_exact<std::string>();
    if (!s) fail(file_, *n, key(name), "expected a string");
    if (!allowed.empty() && allowed.count(*s) == 0) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(file_, *n, key(name), "'" + *s + "' is not one of: " + list);
    }
    return *s;
  }

  void vector2(const std::string& name, Vector2& out) {
    const toml::node* n = find(name);
    if (n == nullptr) return;
    const toml::array* a = n->as_array();
    if (a == nullptr || a->size() != 2) fail(file_, *n, key(name), "expected [x, y]");
    for (int i = 0; i < 2; ++i) {
      const toml::node& item = *a->get(i);
      if (auto f = item.value_exact<double>()) {
        out(i) = *f;
      } else if (auto k = item.value_exact<int64_t>()) {
        out(i) = static_cast<double>(*k);
      } else {
        fail(file_, *n, key(name), "expected [x, y] of numbers");
      }
      if (!std::isfinite(out(i))) fail(file_, *n, key(name), "must be finite");
    }
  }

  const toml::table* subtable(const std::string& name) {
    const toml::node* n = find(name);
    if (n == nullptr) return nullptr;
    const toml::table* t = n->as_table();
    if (t == nullptr) fail(file_, *n, key(name), "expected a table");
    return t;
  }

  void finish() const {
    for (const auto& [k, node] : table_) {
      const std::string name(k.str());
      if (used_.count(name) == 0) fail(file_, node, key(name), "unknown key");
    }
  }

 private:
  const std::string& file_;
  const toml::table& table_;
  std::string prefix_;
  std::set<std::string> used_;
};

RampProfile readProfile(const std::string& file, const toml::table& t, const std::string& prefix) {
  TableReader r(file, t, prefix);
  RampProfile p;
  const std::string shape = r.text("shape", "linear", {"linear", "smooth", "constant"});
  p.shape = shape == "smooth" ? RampProfile::Shape::kSmooth : RampProfile::Shape::kLinear;
  r.number("t0", p.t0, 0.0, 1e9);
  r.number("t1", p.t1, 0.0, 1e9);
  r.number("from", p.v0, -1e9, 1e9);
  p.v1 = p.v0;
  r.number("to", p.v1, -1e9, 1e9);
  if (shape == "constant") {
    double value = 0.0;
    r.number("value", value, -1e9, 1e9);
    p.v0 = p.v1 = value;
    p.t0 = p.t1 = 0.0;
  }
  if (p.t1 < p.t0) fail(file, t, prefix + ".t1", "must not be before t0");
  r.finish();
  return p;
}

// Applies one "a.b.c=value" override to the document.
void applyOverride(toml::table& root, const std::string& text, const std::string& file) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw ScenarioError{file + ":--set: '" + text + "' is not KEY=VALUE"};
  const std::string path = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  toml::table* table = &root;
  std::string::size_type start = 0;
  for (;;) {
    const auto dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) {
      // Value: integer, float, boolean, else string.
      char* end = nullptr;
      const long long asInt = std::strtoll(value.c_str(), &end, 10);
      if (!value.empty() && *end == '\0') {
        table->insert_or_assign(part, static_cast<int64_t>(asInt));
      } else {
        const double asDouble = std::strtod(value.c_str(), &end);
        if (!value.empty() && *end == '\0') {
          table->insert_or_assign(part, asDouble);
        } else if (value == "true" || value == "false") {
          table->insert_or_assign(part, value == "true");
        } else {
          table->insert_or_assign(part, value);
        }
      }
      return;
    }
    toml::node* next = table->get(part);
    if (next == nullptr) {
      table->insert_or_assign(part, toml::table{});
      next = table->get(part);
    }
    if (!next->is_table()) throw ScenarioError{file + ":--set: key '" + path + "': '" + part + "' is not a table"};
    table = next->as_table();
    start = dot + 1;
  }
}

void readScenario(const std::string& file, const toml::table& root, Scenario& s) {
  TableReader top(file, root, "");
  s.title = top.text("title", "", {});
  if (const toml::table* t = top.subtable("belt")) {
    TableReader r(file, *t, "belt");
    r.integer("elements", s.elements, 1, 100000);
    const auto& supported = supportedElementCounts();
    if (std::find(supported.begin(), supported.end(), s.elements) == supported.end()) {
      std::string list;
      for (int n : supported) list += (list.empty() ? "" : ", ") + std::to_string(n);
      fail(file, *t->get("elements"), "belt.elements",
           std::to_string(s.elements) + " is not compiled in; supported element counts: " + list);
    }
    r.boolean("closed", s.belt.closed);
    auto& e = s.belt.element;
    r.number("mass_per_length", e.massPerLength, 0.0, 1e6);
    r.number("axial_stiffness", e.EA, 0.0, 1e12, true);
    r.number("bending_stiffness", e.EI, 0.0, 1e9);
    r.number("reference_strain", e.referenceAxialStrain, -0.9, 0.9);
    r.number("reference_curvature", e.referenceCurvature, -1e6, 1e6);
    r.number("axial_damping", e.axialDamping, 0.0, 1e9);
    r.number("bending_damping", e.bendingDamping, 0.0, 1e9);
    r.vector2("gravity", e.gravity);
    const std::string scheme = r.text("integration_scheme", "c", {"a", "b", "c"});
    e.scheme = scheme == "a" ? IntegrationScheme::kA : scheme == "b" ? IntegrationScheme::kB : IntegrationScheme::kC;
    r.number("thickness", s.belt.thickness, 0.0, 1.0);
    r.number("width", s.belt.width, 0.0, 10.0, true);
    r.finish();
  }
  if (const toml::table* t = top.subtable("contact")) {
    TableReader r(file, *t, "contact");
    r.integer("segments_per_element", s.segmentsPerElement, 1, 8);
    r.number("stiffness_per_area", s.contactStiffnessPerArea, 0.0, 1e15, true);
    r.number("damping_per_area", s.contactDampingPerArea, 0.0, 1e15);
    r.number("normal_exponent", s.normalExponent, 1.0, 4.0);
    r.boolean("segment_normals", s.useSegmentNormals);
    r.boolean("bounding_box", s.useBoundingBox);
    r.finish();
  }
  if (const toml::table* t = top.subtable("friction")) {
    TableReader r(file, *t, "friction");
    r.number("coefficient", s.frictionCoefficient, 0.0, 10.0);
    r.number("bristle_stiffness_per_area", s.bristleStiffnessPerArea, 0.0, 1e15);
    r.number("velocity_penalty_damping_ratio", s.velocityPenaltyDampingRatio, 0.0, 100.0);
    const std::string law = r.text("law", "bristle", {"bristle", "continuous"});
    s.law = law == "continuous" ? TangentialLaw::kContinuous : TangentialLaw::kBristle;
    r.number("characteristic_velocity", s.characteristicVelocity, 0.0, 100.0, true);
    r.finish();
  }
  if (const toml::node* n = top.find("pulley")) {
    const toml::array* a = n->as_array();
    if (a == nullptr || !a->is_array_of_tables()) fail(file, *n, "pulley", "expected [[pulley]] tables");
    int index = 0;
    for (const toml::node& item : *a) {
      const std::string prefix = "pulley[" + std::to_string(index++) + "]";
      TableReader r(file, *item.as_table(), prefix);
      PulleySpec p;
      p.name = r.text("name", prefix, {});
      const std::string kind = r.text("kind", "fixed_axis", {"fixed_axis", "speed", "torque", "floating"});
      p.circle.kind = kind == "speed" ? CircleKind::kSpeedDriven
                    : kind == "torque" ? CircleKind::kTorqueDriven
                    : kind == "floating" ? CircleKind::kFloating : CircleKind::kFixedAxis;
      r.vector2("centre", p.circle.centre);
      r.number("radius", p.circle.radius, 0.0, 100.0, true);
      r.number("inertia", p.circle.inertia, 0.0, 1e9, true);
      r.number("damping", p.circle.rotationalDamping, 0.0, 1e9);
      r.integer("side", p.circle.side, -1, 1);
      if (p.circle.side == 0) fail(file, *item.as_table()->get("side"), prefix + ".side", "must be +1 or -1");
      r.number("mass", p.circle.mass, 0.0, 1e9);
      r.number("support_stiffness", p.circle.supportStiffness, 0.0, 1e12);
      r.number("support_damping", p.circle.supportDamping, 0.0, 1e12);
      if (const toml::table* sp = r.subtable("speed")) p.circle.speed = readProfile(file, *sp, prefix + ".speed");
      if (const toml::table* tq = r.subtable("torque")) p.circle.torque = readProfile(file, *tq, prefix + ".torque");
      if (p.circle.kind == CircleKind::kFloating && !(p.circle.mass > 0.0))
        fail(file, item, prefix + ".mass", "a floating pulley needs a mass > 0");
      r.finish();
      s.pulleys.push_back(p);
    }
  }
  if (s.pulleys.size() != 2) {
    throw ScenarioError{file + ": key 'pulley': this build supports belt drives with exactly 2 pulleys (got " +
                        std::to_string(s.pulleys.size()) + ")"};
  }
  if (const toml::table* t = top.subtable("solver")) {
    TableReader r(file, *t, "solver");
    r.number("step_size", s.stepSize, 0.0, 1.0, true);
    r.number("end_time", s.endTime, 0.0, 1e6, true);
    const std::string scheme = r.text("scheme", "newmark", {"newmark", "generalized_alpha"});
    s.integrator.newmark = scheme == "newmark";
    r.number("spectral_radius", s.integrator.spectralRadius, 0.0, 1.0);
    r.number("newmark_beta", s.integrator.newmarkBeta, 0.0, 0.5, true);
    r.number("newmark_gamma", s.integrator.newmarkGamma, 0.5, 1.0);
    r.integer("max_newton", s.integrator.maxNewtonIterations, 1, 50);
    r.integer("max_pns", s.integrator.maxPnsIterations, 1, 50);
    r.number("relative_tolerance", s.integrator.relativeTolerance, 0.0, 1.0, true);
    r.number("absolute_tolerance", s.integrator.absoluteTolerance, 0.0, 1e6, true);
    r.number("pns_tolerance", s.integrator.pnsTolerance, 0.0, 1e6, true);
    r.finish();
  }
  if (const toml::table* t = top.subtable("static")) {
    TableReader r(file, *t, "static");
    r.integer("load_steps", s.staticSettings.loadSteps, 1, 100);
    r.number("load_range", s.staticSettings.loadRange, 1.0, 1e12);
    r.number("stabilizer", s.staticSettings.stabilizer, 0.0, 1e12);
    r.integer("max_newton", s.staticSettings.maxNewtonIterations, 1, 200);
    r.finish();
  }
  if (const toml::table* t = top.subtable("output")) {
    TableReader r(file, *t, "output");
    r.number("sample_interval", s.sampleInterval, 0.0, 1e6, true);
    r.boolean("plots", s.plots);
    r.finish();
  }
  top.finish();
  if (s.sampleInterval < s.stepSize) s.sampleInterval = s.stepSize;
}

}  // namespace

ParseResult loadScenario(const std::string& path, const std::vector<std::string>& overrides, Scenario& out) {
  ParseResult result;
  Scenario s;
  s.file = path;
  // Defaults of the paper's belt (spec §9.1); a scenario file states what it changes.
  s.belt = paperBelt();
  s.integrator.newmark = true;
  s.integrator.maxNewtonIterations = 8;
  s.integrator.absoluteTolerance = 1e-7;
  try {
    toml::table root = toml::parse_file(path);
    for (const auto& o : overrides) applyOverride(root, o, path);
    readScenario(path, root, s);
  } catch (const toml::parse_error& e) {
    std::ostringstream m;
    m << path << ":" << e.source().begin.line << ": " << e.description();
    result.error = m.str();
    return result;
  } catch (const ScenarioError& e) {
    result.error = e.message;
    return result;
  }
  out = s;
  result.ok = true;
  return result;
}

}  // namespace beltsim::host
