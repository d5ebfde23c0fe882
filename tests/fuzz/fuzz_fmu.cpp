// libFuzzer target: random call sequences and values through the FMU's fmi3* API (the
// microcontroller configuration, linked directly). Each input is a program of at most 48 calls on
// up to 4 instance handles and 4 saved states, with at most 40 model steps in all (a step costs
// about a millisecond under ASan; the static equilibrium of an initialization more).
// Besides the sanitizers, it checks the API's promises: a refused set changes no value, a
// successful step advances the time by the communication step and gives finite outputs, a
// refused state leaves the instance as it was.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "fmi3_api.h"
#include "fmu_build.hpp"

namespace {

using namespace beltsim::fmu;

struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::uint8_t byte() {
    if (size == 0) return 0;
    --size;
    return *data++;
  }
  double number() {
    switch (byte() % 8) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return std::numeric_limits<double>::infinity();
      case 2: return -1e9;
      case 3: return 0.0;
      default: {
        double v = 0.0;
        std::uint8_t raw[8] = {};
        for (std::uint8_t& b : raw) b = byte();
        std::memcpy(&v, raw, sizeof v);
        return (byte() & 1) != 0 ? v : static_cast<double>(static_cast<std::int8_t>(raw[0]));  // small values too
      }
    }
  }
  fmi3ValueReference reference() {
    const std::uint8_t b = byte();
    return (b & 0x80) != 0 ? static_cast<fmi3ValueReference>(b) : kVariables[b % kVariableCount].ref;
  }
};

void check(bool promise) {
  if (!promise) __builtin_trap();
}

void ignoreMessage(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String) {}

double timeOf(fmi3Instance i) {
  const fmi3ValueReference t = kTime;
  double value = 0.0;
  fmi3GetFloat64(i, &t, 1, &value, 1);
  return value;
}

struct Session {
  fmi3Instance instance[4] = {};
  fmi3FMUState state[4] = {};
  int stepsLeft = 40;
  Reader in;

  fmi3Instance pick() {
    const std::uint8_t b = in.byte();
    return (b & 0x40) != 0 ? nullptr : instance[b % 4];
  }

  void setFloat(fmi3Instance i) {
    fmi3ValueReference refs[3];
    double values[3], before[3], after[3];
    const std::size_t n = in.byte() % 4;
    for (std::size_t k = 0; k < n; ++k) {
      refs[k] = in.reference();
      values[k] = in.number();
    }
    const bool readable = fmi3GetFloat64(i, refs, n, before, n) == fmi3OK;
    if (fmi3SetFloat64(i, refs, n, values, n) != fmi3OK && readable) {
      check(fmi3GetFloat64(i, refs, n, after, n) == fmi3OK);
      check(std::memcmp(before, after, n * sizeof(double)) == 0);
    }
  }

  // The FMU accepts a communication step that is a whole multiple (1..1e7) of the model step h
  // (fmu_instance.hpp). A fuzzed size can be one too (1.0 s is 1000 steps): the expected step
  // count comes from the same rule, and a call that would exceed the input's step budget is skipped.
  static double wholeSteps(double size, double h) {
    const double ratio = size / h;
    if (!(ratio >= 0.5 && ratio <= 1e7)) return 0.0;
    const double whole = std::nearbyint(ratio);
    return std::fabs(ratio - whole) <= 1e-9 * whole ? whole : 0.0;
  }

  void doStep(fmi3Instance i) {
    const double h = kBuild.plantConfig(beltsim::MotorMode::kSpeed).stepSize;
    const std::uint8_t b = in.byte();
    const double size = (b & 0x80) != 0 ? in.number() : (b % 5) * h;
    const double steps = wholeSteps(size, h);
    if (steps > stepsLeft) return;
    stepsLeft -= static_cast<int>(steps);
    const double now = timeOf(i);
    bool flags[3];
    double reached = 0.0;
    const fmi3ValueReference outputs[] = {kMotorPulleySpeed, kLoadPulleySpeed, kDriveTorque, kTightSpanForce};
    if (fmi3DoStep(i, (b & 0x20) != 0 ? in.number() : now, size, false, &flags[0], &flags[1], &flags[2],
                   &reached) == fmi3OK) {
      check(steps >= 1.0);  // only whole multiples of h from the FMU's time succeed
      // The FMU's time is startTime + n h, rounded once; now + size is rounded too: at a start
      // time of -1e9 s the two differ by an ulp of the time (1.2e-7 s), not by 1e-9 s.
      const double ulps = 4.0 * std::numeric_limits<double>::epsilon() * (std::fabs(now) + std::fabs(size));
      check(std::fabs(timeOf(i) - (now + size)) <= 1e-9 + ulps);
      double y[4];
      check(fmi3GetFloat64(i, outputs, 4, y, 4) == fmi3OK);
      for (double v : y) check(std::isfinite(v));
    }
  }

  void states(fmi3Instance i, std::uint8_t op) {
    const int s = in.byte() % 4;
    if (op == 0) {
      fmi3FMUState st = state[s];
      if (fmi3GetFMUState(i, &st) == fmi3OK) state[s] = st;
    } else if (op == 1) {
      fmi3SetFMUState(i, state[s]);
    } else if (op == 2) {
      if (fmi3FreeFMUState(i, &state[s]) != fmi3OK) return;
    } else {
      std::size_t size = 0;
      if (fmi3SerializedFMUStateSize(i, state[s], &size) != fmi3OK) return;
      static std::uint8_t buffer[sizeof(Sim) + 256];
      if (size > sizeof buffer || fmi3SerializeFMUState(i, state[s], buffer, size) != fmi3OK) return;
      const std::uint8_t how = in.byte();
      std::size_t length = size;
      const bool truncated = (how & 3) == 1, corrupted = (how & 3) == 2;  // otherwise intact
      if (truncated) length = size - 1 - (in.byte() % size);  // at least one byte short
      if (corrupted) buffer[(static_cast<std::size_t>(in.byte()) * 4099u) % size] ^= 1u + (in.byte() % 255);
      const double before = timeOf(i);
      fmi3FMUState restored = nullptr;
      const fmi3Status status = fmi3DeserializeFMUState(i, buffer, length, &restored);
      // An intact buffer is accepted unless the state pool is full; a damaged one is always refused.
      check(truncated || corrupted ? status == fmi3Error : status == fmi3OK || restored == nullptr);
      check(timeOf(i) == before || std::isnan(before));
      if (restored != nullptr) fmi3FreeFMUState(i, &restored);
    }
  }

  void call() {
    const std::uint8_t op = in.byte() % 18;
    const int slot = in.byte() % 4;
    fmi3Instance i = pick();
    switch (op) {
      case 0: {
        if (instance[slot] != nullptr) break;
        const std::uint8_t b = in.byte();
        const char* token = (b & 1) != 0 ? kInstantiationToken : "{not-beltsim}";
        instance[slot] = fmi3InstantiateCoSimulation((b & 2) != 0 ? "fuzz" : nullptr, token, nullptr, false,
                                                     (b & 4) != 0, (b & 8) != 0, false, nullptr, 0, nullptr,
                                                     (b & 16) != 0 ? ignoreMessage : nullptr, nullptr);
        break;
      }
      case 1:
        fmi3FreeInstance(instance[slot]);  // frees the instance's saved states too
        if (instance[slot] != nullptr)
          for (fmi3FMUState& st : state) st = nullptr;  // handles of freed states are not used again
        instance[slot] = nullptr;
        break;
      case 2: fmi3EnterInitializationMode(i, false, 0.0, (in.byte() & 1) != 0 ? in.number() : 0.0, false, 0.0); break;
      case 3: fmi3ExitInitializationMode(i); break;
      case 4: setFloat(i); break;
      case 5: {
        const fmi3ValueReference r = in.reference();
        const fmi3Int32 v = static_cast<fmi3Int32>(in.byte()) - 64;
        fmi3SetInt32(i, &r, 1, &v, 1);
        break;
      }
      case 6: {
        const fmi3ValueReference r = in.reference();
        const fmi3Boolean v = true;
        fmi3SetBoolean(i, &r, 1, &v, 1);
        break;
      }
      case 7: {
        const fmi3ValueReference r = in.reference();
        double f = 0.0;
        fmi3Int32 n = 0;
        fmi3Boolean b = false;
        fmi3GetFloat64(i, &r, 1, &f, 1);
        fmi3GetInt32(i, &r, 1, &n, 1);
        fmi3GetBoolean(i, &r, 1, &b, 1);
        fmi3GetFloat64(i, &r, 1, &f, in.byte() % 3);  // value count mismatch
        break;
      }
      case 8: doStep(i); break;
      case 9: case 10: case 11: case 12: states(i, static_cast<std::uint8_t>(op - 9)); break;
      case 13: fmi3Reset(i); break;
      case 14: fmi3Terminate(i); break;
      case 15: {
        const fmi3String categories[] = {"logStatusError", "logNonConverged", "logNoSuchCategory"};
        fmi3SetDebugLogging(i, (in.byte() & 1) != 0, in.byte() % 4, categories);
        break;
      }
      case 16:
        check(fmi3EnterEventMode(i) == fmi3Error && fmi3EnterStepMode(i) == fmi3Error &&
              fmi3SetTime(i, 0.0) == fmi3Error && fmi3EvaluateDiscreteStates(i) == fmi3Error);
        break;
      default: {
        const fmi3ValueReference r = in.reference();
        float f = 0.0f;
        check(fmi3GetFloat32(i, &r, 1, &f, 1) == fmi3Error);
        check(fmi3GetFloat32(i, &r, 0, &f, 0) == (i == nullptr ? fmi3Error : fmi3OK));
        break;
      }
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Session s;
  s.in = Reader{data, size};
  for (int k = 0; k < 48 && s.in.size > 0; ++k) s.call();
  for (fmi3Instance& i : s.instance) {
    fmi3FreeInstance(i);  // frees its saved states too
    i = nullptr;
  }
  return 0;
}
