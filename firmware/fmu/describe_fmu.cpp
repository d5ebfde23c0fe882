// Writes the FMU's modelDescription.xml from the variable table (fmu_variables.hpp) and the build
// identity (fmu_build.hpp), so the description always names the library's value references,
// types and token. Element order and attributes follow the FMI 3.0 schema
// (fmi3ModelDescription.xsd): CoSimulation, UnitDefinitions, LogCategories, DefaultExperiment,
// ModelVariables, ModelStructure (Output, then InitialUnknown).
// Usage: describe_fmu OUTPUT_FILE
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "fmu_build.hpp"

namespace {

using namespace beltsim::fmu;

// Attribute values with the five XML special characters escaped.
void escaped(std::FILE* f, const char* text) {
  for (const char* c = text; *c != '\0'; ++c) {
    switch (*c) {
      case '&': std::fputs("&amp;", f); break;
      case '<': std::fputs("&lt;", f); break;
      case '>': std::fputs("&gt;", f); break;
      case '"': std::fputs("&quot;", f); break;
      case '\'': std::fputs("&apos;", f); break;
      default: std::fputc(*c, f);
    }
  }
}

void attribute(std::FILE* f, const char* name, const char* value) {
  std::fprintf(f, " %s=\"", name);
  escaped(f, value);
  std::fputc('"', f);
}

void attribute(std::FILE* f, const char* name, double value) { std::fprintf(f, " %s=\"%.17g\"", name, value); }

const char* typeName(VarType t) {
  return t == VarType::kFloat64 ? "Float64" : t == VarType::kInt32 ? "Int32" : "Boolean";
}
const char* causalityName(Causality c) {
  static constexpr const char* kNames[] = {"independent", "input", "parameter", "output", "local"};
  return kNames[static_cast<int>(c)];
}
const char* variabilityName(Variability v) {
  static constexpr const char* kNames[] = {"constant", "fixed", "tunable", "discrete", "continuous"};
  return kNames[static_cast<int>(v)];
}

// A unit's SI exponents (FMI BaseUnit attributes kg, m, s, rad).
struct UnitDefinition {
  const char* name;
  int kg, m, s, rad;
};
constexpr UnitDefinition kUnits[] = {
    {"s", 0, 0, 1, 0},        {"m", 0, 1, 0, 0},     {"rad", 0, 0, 0, 1},     {"rad/s", 0, 0, -1, 1},
    {"N", 1, 1, -2, 0},       {"N.m", 1, 2, -2, 0},  {"N.m.s/rad", 1, 2, -1, -1}, {"kg.m2", 1, 2, 0, 0},
};

void unitDefinitions(std::FILE* f) {
  std::fputs("  <UnitDefinitions>\n", f);
  for (const UnitDefinition& u : kUnits) {
    std::fprintf(f, "    <Unit name=\"%s\">\n      <BaseUnit", u.name);
    if (u.kg != 0) std::fprintf(f, " kg=\"%d\"", u.kg);
    if (u.m != 0) std::fprintf(f, " m=\"%d\"", u.m);
    if (u.s != 0) std::fprintf(f, " s=\"%d\"", u.s);
    if (u.rad != 0) std::fprintf(f, " rad=\"%d\"", u.rad);
    std::fputs("/>\n    </Unit>\n", f);
  }
  std::fputs("  </UnitDefinitions>\n", f);
}

// The start value of a constant is the build's value (what the library returns).
double constantValue(std::uint32_t ref, const beltsim::PlantConfig& c) {
  switch (ref) {
    case kElementCount: return kElements;
    case kInternalStepSize: return c.stepSize;
    default: return Model::constant(kBuild, ref);
  }
}

void variable(std::FILE* f, const Variable& v, const beltsim::PlantConfig& config) {
  std::fprintf(f, "    <%s", typeName(v.type));
  attribute(f, "name", v.name);
  std::fprintf(f, " valueReference=\"%u\"", static_cast<unsigned>(v.ref));
  attribute(f, "description", v.description);
  attribute(f, "causality", causalityName(v.causality));
  attribute(f, "variability", variabilityName(v.variability));
  const bool hasStart = v.causality == Causality::kInput || v.causality == Causality::kParameter ||
                        v.variability == Variability::kConstant;
  if (v.unit[0] != '\0') attribute(f, "unit", v.unit);
  if ((v.causality == Causality::kInput || v.causality == Causality::kParameter) && v.type != VarType::kBoolean) {
    attribute(f, "min", v.min);
    attribute(f, "max", v.max);
  }
  if (hasStart) {
    const double start = v.variability == Variability::kConstant ? constantValue(v.ref, config) : v.start;
    if (v.type == VarType::kBoolean) attribute(f, "start", start != 0.0 ? "true" : "false");
    else attribute(f, "start", start);
  }
  std::fputs("/>\n", f);
}

void modelStructure(std::FILE* f) {
  std::fputs("  <ModelStructure>\n", f);
  for (const Variable& v : kVariables)
    if (v.causality == Causality::kOutput) std::fprintf(f, "    <Output valueReference=\"%u\"/>\n", unsigned(v.ref));
  for (const Variable& v : kVariables)
    if (v.causality == Causality::kOutput)
      std::fprintf(f, "    <InitialUnknown valueReference=\"%u\"/>\n", unsigned(v.ref));
  std::fputs("  </ModelStructure>\n", f);
}

void write(std::FILE* f) {
  const beltsim::PlantConfig config = kBuild.plantConfig(beltsim::MotorMode::kSpeed);
  std::fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription", f);
  attribute(f, "fmiVersion", "3.0");
  attribute(f, "modelName", kBuild.modelIdentifier);
  attribute(f, "instantiationToken", kInstantiationToken);
  attribute(f, "description", kConfigurationName);
  attribute(f, "version", "0.1.0");
  attribute(f, "generationTool", "beltsim describe_fmu");
  // A scenario's FMU names its variables pulley.quantity (scripts/scenario_to_fmu.py).
  attribute(f, "variableNamingConvention", BELTSIM_FMU_PC_CONFIG == 2 ? "structured" : "flat");
  std::fputs(">\n  <CoSimulation", f);
  attribute(f, "modelIdentifier", kBuild.modelIdentifier);
  std::fputs(" canGetAndSetFMUState=\"true\" canSerializeFMUState=\"true\""
             " canHandleVariableCommunicationStepSize=\"true\"",
             f);
  attribute(f, "fixedInternalStepSize", config.stepSize);
  std::fputs(" hasEventMode=\"false\"/>\n", f);
  unitDefinitions(f);
  std::fputs("  <LogCategories>\n", f);
  static constexpr const char* kCategoryText[] = {
      "Calls that return fmi3Error: wrong mode, refused values, faults",
      "Calls that return fmi3Warning (none today)",
      "Model steps that did not meet the Newton or post-Newton tolerance (fmi3DoStep still returns fmi3OK)"};
  for (int c = 0; c < static_cast<int>(LogCategory::kCount); ++c) {
    std::fputs("    <Category", f);
    attribute(f, "name", kLogCategoryNames[c]);
    attribute(f, "description", kCategoryText[c]);
    std::fputs("/>\n", f);
  }
  std::fputs("  </LogCategories>\n  <DefaultExperiment startTime=\"0\"", f);
  attribute(f, "stopTime", kDefaultStopTime);
  attribute(f, "stepSize", config.stepSize);
  std::fputs("/>\n  <ModelVariables>\n", f);
  for (const Variable& v : kVariables) variable(f, v, config);
  std::fputs("  </ModelVariables>\n", f);
  modelStructure(f);
  std::fputs("</fmiModelDescription>\n", f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: describe_fmu OUTPUT_FILE\n");
    return 2;
  }
  std::FILE* f = std::fopen(argv[1], "w");
  if (f == nullptr) {
    std::fprintf(stderr, "describe_fmu: cannot write %s\n", argv[1]);
    return 1;
  }
  write(f);
  return std::fclose(f) == 0 ? 0 : 1;
}
