// libFuzzer target: the host simulator's scenario parser (host_sim/scenario.cpp, toml++).
// Input: TOML text, optionally followed by a NUL byte and `--set` overrides, one per line.
// The parser may refuse any input, but must not crash, hang, leak or trip a sanitizer; its
// result must be consistent (ok without error, or an error naming the file), and the values of
// an accepted scenario must lie in the schema's ranges. A violated property prints why and
// aborts.
// Exceptions are not caught here: one escaping parseScenarioText would end `beltsim run` too.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace {

[[noreturn]] void failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_scenario: property violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void check(bool ok, const char* what, const std::string& detail) {
  if (!ok) failed(what, detail);
}

bool in(double v, double low, double high) { return std::isfinite(v) && v >= low && v <= high; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  std::vector<std::string> overrides;
  if (nul != std::string::npos) {
    std::size_t start = nul + 1;
    while (start <= input.size()) {
      const std::size_t end = std::min(input.find('\n', start), input.size());
      overrides.push_back(input.substr(start, end - start));
      start = end + 1;
    }
  }

  beltsim::host::Scenario s;
  const beltsim::host::ParseResult r = beltsim::host::parseScenarioText(text, "fuzz.toml", overrides, s);
  if (!r.ok) {
    check(r.error.rfind("fuzz.toml:", 0) == 0, "error does not start with the file name", r.error);
    return 0;
  }
  check(r.error.empty(), "accepted with an error message", r.error);
  check(s.file == "fuzz.toml", "file name not kept", s.file);
  const auto& counts = beltsim::host::supportedElementCounts();
  check(std::find(counts.begin(), counts.end(), s.elements) != counts.end(), "unsupported element count",
        std::to_string(s.elements));
  check(s.segmentsPerElement >= 1 && s.segmentsPerElement <= 8, "segments per element out of range",
        std::to_string(s.segmentsPerElement));
  // A closed belt runs around 2 to 8 pulleys; an open belt has 0 to 8 and one initial node per
  // element end, no two consecutive ones equal.
  check(s.pulleys.size() >= (s.belt.closed ? 2u : 0u) && s.pulleys.size() <= beltsim::host::kMaxPulleys,
        "pulley count out of range", std::to_string(s.pulleys.size()));
  check(s.belt.closed ? s.cableNodes.empty() : static_cast<int>(s.cableNodes.size()) == s.elements + 1,
        "open-belt node count", std::to_string(s.cableNodes.size()));
  for (std::size_t k = 1; k < s.cableNodes.size(); ++k)
    check((s.cableNodes[k] - s.cableNodes[k - 1]).norm() > 0.0, "coincident open-belt nodes", std::to_string(k));
  for (int k : s.outputNodes)
    check(k >= 0 && k <= s.elements, "output node out of range", std::to_string(k));
  for (const auto& p : s.pulleys) {
    check(p.circle.side == 1 || p.circle.side == -1, "pulley side not +-1", std::to_string(p.circle.side));
    // The layout check requires every radius (> 0); a missing inertia keeps its default 0, which
    // the model's setUp refuses later ("invalid model parameter 'circle.inertia'").
    check(std::isfinite(p.circle.radius) && p.circle.radius <= 100.0 && p.circle.radius > 0.0,
          "pulley radius out of range", std::to_string(p.circle.radius));
    check(std::isfinite(p.circle.centre(0)) && std::isfinite(p.circle.centre(1)), "pulley centre not finite",
          p.name);
  }
  check(in(s.stepSize, 1e-300, 1.0) && in(s.endTime, 1e-300, 1e6), "step size or end time out of range",
        std::to_string(s.stepSize) + " " + std::to_string(s.endTime));
  check(s.sampleInterval >= s.stepSize && std::isfinite(s.sampleInterval), "sample interval below the step",
        std::to_string(s.sampleInterval));
  const double mu = s.contactPerArea.frictionCoefficient;
  check(in(mu, 0.0, 10.0) && in(s.belt.width, 1e-300, 10.0), "friction or width out of range",
        std::to_string(mu) + " " + std::to_string(s.belt.width));
  return 0;
}
