// The FMI 3.0 co-simulation interface of the plant: the fmi3* functions around fmu::Instance, a
// fixed pool of instances and one of saved states (static storage, no heap), logging through the
// importer's callback, and the serialized state format. Model exchange and scheduled execution
// are not provided: their functions exist (importers resolve every function at load time) and
// return fmi3Error with a log message.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "fmi3_api.h"
#include "fmu_build.hpp"

namespace beltsim::fmu {
namespace {

// One pooled instance: the simulation and what the importer gave at instantiation.
struct InstanceSlot final : Reporter {
  std::atomic<bool> used{false};
  Instance<Model> instance;
  char name[64] = {};
  fmi3InstanceEnvironment environment = nullptr;
  fmi3LogMessageCallback logMessage = nullptr;
  bool categoryOn[static_cast<int>(LogCategory::kCount)] = {};
  char message[512] = {};

  void report(LogCategory category, const char* format, ...) override {
    const int c = static_cast<int>(category);
    // Errors are always reported; warnings and the model's category when logging is on.
    if (logMessage == nullptr || (category != LogCategory::kStatusError && !categoryOn[c])) return;
    std::va_list args;
    va_start(args, format);
    std::vsnprintf(message, sizeof message, format, args);
    va_end(args);
    const fmi3Status status = category == LogCategory::kStatusError ? fmi3Error
                              : category == LogCategory::kStatusWarning ? fmi3Warning
                                                                         : fmi3OK;
    logMessage(environment, status, kLogCategoryNames[c], message);
  }
};

struct StateSlot {
  std::atomic<bool> used{false};
  const InstanceSlot* owner = nullptr;
  Sim simulation;
};

InstanceSlot g_instances[kMaxInstances];
StateSlot g_states[kMaxStates];

// The instance behind a handle, or nullptr when the handle is not one of this library's live
// instances (null, freed, or another library's).
InstanceSlot* slotOf(fmi3Instance handle) {
  for (InstanceSlot& s : g_instances)
    if (&s == handle) return s.used.load() ? &s : nullptr;
  return nullptr;
}

StateSlot* stateOf(fmi3FMUState handle, const InstanceSlot& owner) {
  for (StateSlot& s : g_states)
    if (&s == handle) return s.used.load() && s.owner == &owner ? &s : nullptr;
  return nullptr;
}

// Whether p is the address of one of the pool's states (used or not, of any instance).
bool isPoolState(const void* p) {
  for (const StateSlot& s : g_states)
    if (&s == p) return true;
  return false;
}

void releaseState(StateSlot& st) {
  st.owner = nullptr;
  st.used.store(false);
}

StateSlot* allocateState(const InstanceSlot& owner) {
  for (StateSlot& s : g_states) {
    bool expected = false;
    if (s.used.compare_exchange_strong(expected, true)) {
      s.owner = &owner;
      return &s;
    }
  }
  return nullptr;
}

fmi3Status statusOf(Result r) { return r == Result::kOk ? fmi3OK : fmi3Error; }

fmi3Status notProvided(fmi3Instance handle, const char* function) {
  InstanceSlot* s = slotOf(handle);
  if (s != nullptr)
    s->report(LogCategory::kStatusError, "%s: not provided (beltsim is a co-simulation FMU without event mode)",
              function);
  return fmi3Error;
}

// Serialized state: a fixed header, then the Simulation's bytes (same library build only).
struct StateHeader {
  char magic[8];
  std::uint32_t layoutVersion;
  std::uint32_t elements;
  std::uint64_t payloadBytes;
  std::uint64_t tokenHash;
  std::uint64_t payloadHash;
};
constexpr char kStateMagic[8] = {'B', 'E', 'L', 'T', 'S', 'I', 'M', 'S'};
constexpr std::size_t kSerializedSize = sizeof(StateHeader) + sizeof(Sim);

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t hash = 14695981039346656037ull) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

StateHeader headerFor(const Sim& simulation) {
  StateHeader h{};
  std::memcpy(h.magic, kStateMagic, sizeof h.magic);
  h.layoutVersion = kStateLayoutVersion;
  h.elements = static_cast<std::uint32_t>(kElements);
  h.payloadBytes = sizeof(Sim);
  h.tokenHash = fnv1a(kInstantiationToken, std::strlen(kInstantiationToken));
  h.payloadHash = fnv1a(&simulation, sizeof(Sim));
  return h;
}

// Why a serialized state is refused, or nullptr when it is this build's and intact.
const char* checkSerialized(const fmi3Byte* bytes, std::size_t size) {
  if (bytes == nullptr) return "no buffer";
  if (size < sizeof(StateHeader)) return "shorter than the header (truncated)";
  StateHeader h;
  std::memcpy(&h, bytes, sizeof h);
  if (std::memcmp(h.magic, kStateMagic, sizeof h.magic) != 0) return "not a beltsim FMU state";
  if (h.tokenHash != fnv1a(kInstantiationToken, std::strlen(kInstantiationToken)) ||
      h.layoutVersion != kStateLayoutVersion || h.elements != static_cast<std::uint32_t>(kElements) ||
      h.payloadBytes != sizeof(Sim))
    return "saved by another build configuration";
  if (size != kSerializedSize) return "wrong size (truncated or padded)";
  if (fnv1a(bytes + sizeof h, sizeof(Sim)) != h.payloadHash) return "checksum mismatch (corrupted)";
  return nullptr;
}

template <typename T>
fmi3Status getValues(fmi3Instance handle, const fmi3ValueReference* refs, std::size_t nRefs, T* values,
                     std::size_t nValues, VarType type, const char* function) {
  InstanceSlot* s = slotOf(handle);
  if (s == nullptr) return fmi3Error;
  if (nRefs == 0) return fmi3OK;
  if (refs == nullptr || values == nullptr || nValues != nRefs) {
    s->report(LogCategory::kStatusError, "%s: %zu values for %zu value references (scalars only)", function, nValues,
              nRefs);
    return fmi3Error;
  }
  for (std::size_t i = 0; i < nRefs; ++i) {
    double v = 0.0;
    if (!s->instance.get(refs[i], type, v, *s)) {
      s->report(LogCategory::kStatusError, "%s: value reference %u: no variable of this type, or no value (see above)",
                function, refs[i]);
      return fmi3Error;
    }
    values[i] = static_cast<T>(v);
  }
  return fmi3OK;
}

// Types without any variable: only the empty call succeeds.
fmi3Status noVariables(fmi3Instance handle, std::size_t nRefs, const char* function) {
  InstanceSlot* s = slotOf(handle);
  if (s == nullptr) return fmi3Error;
  if (nRefs == 0) return fmi3OK;
  s->report(LogCategory::kStatusError, "%s: beltsim has no variable of this type", function);
  return fmi3Error;
}

bool checkSetCall(InstanceSlot* s, const void* refs, std::size_t nRefs, const void* values, std::size_t nValues,
                  const char* function) {
  if (s == nullptr) return false;
  if (nRefs != 0 && (refs == nullptr || values == nullptr || nValues != nRefs)) {
    s->report(LogCategory::kStatusError, "%s: %zu values for %zu value references (scalars only)", function, nValues,
              nRefs);
    return false;
  }
  return true;
}

}  // namespace
}  // namespace beltsim::fmu

using namespace beltsim::fmu;

extern "C" {

const char* fmi3GetVersion(void) { return "3.0"; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[]) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr) return fmi3Error;
  constexpr int kCount = static_cast<int>(LogCategory::kCount);
  if (nCategories == 0) {
    for (bool& on : s->categoryOn) on = loggingOn;
    return fmi3OK;
  }
  if (categories == nullptr) return fmi3Error;
  for (size_t i = 0; i < nCategories; ++i) {
    int found = -1;
    for (int c = 0; c < kCount; ++c)
      if (categories[i] != nullptr && std::strcmp(categories[i], kLogCategoryNames[c]) == 0) found = c;
    if (found < 0) {
      s->report(LogCategory::kStatusError, "fmi3SetDebugLogging: unknown log category \"%s\"",
                categories[i] == nullptr ? "(null)" : categories[i]);
      return fmi3Error;
    }
    s->categoryOn[found] = loggingOn;
  }
  return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                          fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage) {
  if (logMessage != nullptr)
    logMessage(environment, fmi3Error, "logStatusError", "beltsim provides co-simulation only (no model exchange)");
  return nullptr;
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String, fmi3String, fmi3String, fmi3Boolean, fmi3Boolean,
                                               fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage,
                                               fmi3ClockUpdateCallback, fmi3LockPreemptionCallback,
                                               fmi3UnlockPreemptionCallback) {
  if (logMessage != nullptr)
    logMessage(environment, fmi3Error, "logStatusError", "beltsim provides co-simulation only (no scheduled execution)");
  return nullptr;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken, fmi3String,
                                         fmi3Boolean, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
                                         fmi3Boolean, const fmi3ValueReference[], size_t,
                                         fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback) {
  const char* refusal = nullptr;
  if (instanceName == nullptr || instanceName[0] == '\0') refusal = "an instance name is required";
  else if (instantiationToken == nullptr || std::strcmp(instantiationToken, kInstantiationToken) != 0)
    refusal = "the instantiation token does not match this library (another build's modelDescription.xml?)";
  else if (eventModeUsed) refusal = "event mode is not provided (hasEventMode = false)";
  InstanceSlot* slot = nullptr;
  if (refusal == nullptr) {
    for (InstanceSlot& s : g_instances) {
      bool expected = false;
      if (s.used.compare_exchange_strong(expected, true)) {
        slot = &s;
        break;
      }
    }
    if (slot == nullptr) refusal = "all instances of the pool are in use (see docs/fmu.md, \"Pools\": kMaxInstances)";
  }
  if (refusal != nullptr) {
    if (logMessage != nullptr) logMessage(environment, fmi3Error, "logStatusError", refusal);
    return nullptr;
  }
  std::snprintf(slot->name, sizeof slot->name, "%s", instanceName);
  slot->environment = environment;
  slot->logMessage = logMessage;
  for (bool& on : slot->categoryOn) on = loggingOn;
  slot->instance.bind(kBuild);
  slot->instance.reset();
  return slot;
}

void fmi3FreeInstance(fmi3Instance instance) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr) return;
  for (StateSlot& st : g_states)
    if (st.used.load() && st.owner == s) {
      st.owner = nullptr;
      st.used.store(false);
    }
  s->logMessage = nullptr;
  s->used.store(false);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean, fmi3Float64, fmi3Float64 startTime,
                                       fmi3Boolean, fmi3Float64) {
  InstanceSlot* s = slotOf(instance);
  return s == nullptr ? fmi3Error : statusOf(s->instance.enterInitialization(startTime, *s));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
  InstanceSlot* s = slotOf(instance);
  return s == nullptr ? fmi3Error : statusOf(s->instance.exitInitialization(*s));
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) { return notProvided(instance, "fmi3EnterEventMode"); }

fmi3Status fmi3Terminate(fmi3Instance instance) {
  InstanceSlot* s = slotOf(instance);
  return s == nullptr ? fmi3Error : statusOf(s->instance.terminate(*s));
}

fmi3Status fmi3Reset(fmi3Instance instance) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr) return fmi3Error;
  s->instance.reset();
  return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          fmi3Float64 values[], size_t nValues) {
  return getValues(instance, valueReferences, nValueReferences, values, nValues, VarType::kFloat64, "fmi3GetFloat64");
}
fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                        fmi3Int32 values[], size_t nValues) {
  return getValues(instance, valueReferences, nValueReferences, values, nValues, VarType::kInt32, "fmi3GetInt32");
}
fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          fmi3Boolean values[], size_t nValues) {
  return getValues(instance, valueReferences, nValueReferences, values, nValues, VarType::kBoolean, "fmi3GetBoolean");
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          const fmi3Float64 values[], size_t nValues) {
  InstanceSlot* s = slotOf(instance);
  if (!checkSetCall(s, valueReferences, nValueReferences, values, nValues, "fmi3SetFloat64")) return fmi3Error;
  return statusOf(s->instance.setFloat64(valueReferences, nValueReferences, values, *s));
}
fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                        const fmi3Int32 values[], size_t nValues) {
  InstanceSlot* s = slotOf(instance);
  if (!checkSetCall(s, valueReferences, nValueReferences, values, nValues, "fmi3SetInt32")) return fmi3Error;
  return statusOf(s->instance.setInt32(valueReferences, nValueReferences, values, *s));
}
fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          const fmi3Boolean values[], size_t nValues) {
  InstanceSlot* s = slotOf(instance);
  if (!checkSetCall(s, valueReferences, nValueReferences, values, nValues, "fmi3SetBoolean")) return fmi3Error;
  return statusOf(s->instance.setBoolean(valueReferences, nValueReferences, values, *s));
}

// Types beltsim has no variable of.
#define BELTSIM_FMU_NO_VARIABLES(Name, Type)                                                                    \
  fmi3Status fmi3Get##Name(fmi3Instance instance, const fmi3ValueReference[], size_t nValueReferences, Type[], \
                           size_t) {                                                                          \
    return noVariables(instance, nValueReferences, "fmi3Get" #Name);                                          \
  }                                                                                                           \
  fmi3Status fmi3Set##Name(fmi3Instance instance, const fmi3ValueReference[], size_t nValueReferences,        \
                           const Type[], size_t) {                                                            \
    return noVariables(instance, nValueReferences, "fmi3Set" #Name);                                          \
  }
BELTSIM_FMU_NO_VARIABLES(Float32, fmi3Float32)
BELTSIM_FMU_NO_VARIABLES(Int8, fmi3Int8)
BELTSIM_FMU_NO_VARIABLES(UInt8, fmi3UInt8)
BELTSIM_FMU_NO_VARIABLES(Int16, fmi3Int16)
BELTSIM_FMU_NO_VARIABLES(UInt16, fmi3UInt16)
BELTSIM_FMU_NO_VARIABLES(UInt32, fmi3UInt32)
BELTSIM_FMU_NO_VARIABLES(Int64, fmi3Int64)
BELTSIM_FMU_NO_VARIABLES(UInt64, fmi3UInt64)
BELTSIM_FMU_NO_VARIABLES(String, fmi3String)
#undef BELTSIM_FMU_NO_VARIABLES

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference[], size_t nValueReferences, size_t[],
                         fmi3Binary[], size_t) {
  return noVariables(instance, nValueReferences, "fmi3GetBinary");
}
fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference[], size_t nValueReferences, const size_t[],
                         const fmi3Binary[], size_t) {
  return noVariables(instance, nValueReferences, "fmi3SetBinary");
}
fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference[], size_t nValueReferences, fmi3Clock[]) {
  return noVariables(instance, nValueReferences, "fmi3GetClock");
}
fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference[], size_t nValueReferences,
                        const fmi3Clock[]) {
  return noVariables(instance, nValueReferences, "fmi3SetClock");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference, size_t*) {
  return notProvided(instance, "fmi3GetNumberOfVariableDependencies");
}
fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference, size_t[], fmi3ValueReference[],
                                       size_t[], fmi3DependencyKind[], size_t) {
  return notProvided(instance, "fmi3GetVariableDependencies");
}

// ---- FMU state ---------------------------------------------------------------------------------
fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr || FMUState == nullptr) return fmi3Error;
  StateSlot* st = *FMUState == nullptr ? allocateState(*s) : stateOf(*FMUState, *s);
  if (st == nullptr) {
    s->report(LogCategory::kStatusError, *FMUState == nullptr
                                             ? "fmi3GetFMUState: all %d saved states of the pool are in use"
                                             : "fmi3GetFMUState: not a state of this instance (pool of %d)",
              kMaxStates);
    return fmi3Error;
  }
  st->simulation = s->instance.simulation();
  *FMUState = st;
  return fmi3OK;
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr) return fmi3Error;
  StateSlot* st = stateOf(FMUState, *s);
  if (st == nullptr) {
    s->report(LogCategory::kStatusError, "fmi3SetFMUState: not a state of this instance");
    return fmi3Error;
  }
  s->instance.simulation() = st->simulation;
  return fmi3OK;
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr || FMUState == nullptr) return fmi3Error;
  // Decision: an importer that passes the state itself where the standard passes the
  // address of the variable holding it (fmusim 0.0.39 of the Reference-FMUs does, when it saves or
  // restores a state file) means that state. When the pointer is one of this instance's own pool
  // states in use, it is freed with a warning (logged when the category "logStatusWarning" is on)
  // and the call returns fmi3OK. Only the address is compared, nothing is read through it; an
  // importer's own variable cannot lie inside the FMU's pool, so a standard call never takes this
  // path. A pool state that is freed or another instance's stays fmi3Error; any other pointer
  // follows the standard.
  if (isPoolState(FMUState)) {
    StateSlot* own = stateOf(static_cast<fmi3FMUState>(FMUState), *s);
    if (own == nullptr) {
      s->report(LogCategory::kStatusError, "fmi3FreeFMUState: given a state that is freed or another instance's");
      return fmi3Error;
    }
    releaseState(*own);
    s->report(LogCategory::kStatusWarning,
              "fmi3FreeFMUState: given the state instead of its address (as some importers call it); freed");
    return fmi3OK;
  }
  if (*FMUState == nullptr) return fmi3OK;
  StateSlot* st = stateOf(*FMUState, *s);
  if (st == nullptr) {
    s->report(LogCategory::kStatusError, "fmi3FreeFMUState: not a state of this instance");
    return fmi3Error;
  }
  releaseState(*st);
  *FMUState = nullptr;
  return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t* size) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr || size == nullptr || stateOf(FMUState, *s) == nullptr) return fmi3Error;
  *size = kSerializedSize;
  return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr) return fmi3Error;
  StateSlot* st = stateOf(FMUState, *s);
  if (st == nullptr || serializedState == nullptr || size != kSerializedSize) {
    s->report(LogCategory::kStatusError, "fmi3SerializeFMUState: needs a state of this instance and %zu bytes",
              kSerializedSize);
    return fmi3Error;
  }
  const StateHeader h = headerFor(st->simulation);
  std::memcpy(serializedState, &h, sizeof h);
  std::memcpy(serializedState + sizeof h, static_cast<const void*>(&st->simulation), sizeof(Sim));
  return fmi3OK;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState* FMUState) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr || FMUState == nullptr) return fmi3Error;
  const char* refusal = checkSerialized(serializedState, size);
  if (refusal != nullptr) {
    s->report(LogCategory::kStatusError, "fmi3DeserializeFMUState: refused, %s (%zu bytes, expected %zu)", refusal,
              size, kSerializedSize);
    return fmi3Error;
  }
  StateSlot* st = allocateState(*s);
  if (st == nullptr) {
    s->report(LogCategory::kStatusError, "fmi3DeserializeFMUState: all %d saved states of the pool are in use",
              kMaxStates);
    return fmi3Error;
  }
  // The bytes are this build's Simulation (checked above): no pointer, no virtual member.
  std::memcpy(static_cast<void*>(&st->simulation), serializedState + sizeof(StateHeader), sizeof(Sim));
  *FMUState = st;
  return fmi3OK;
}

// ---- Co-simulation -----------------------------------------------------------------------------
fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean, fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                      fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
  InstanceSlot* s = slotOf(instance);
  if (s == nullptr) return fmi3Error;
  double reached = 0.0;
  const Result r = s->instance.doStep(currentCommunicationPoint, communicationStepSize, reached, *s);
  if (eventHandlingNeeded != nullptr) *eventHandlingNeeded = false;
  if (terminateSimulation != nullptr) *terminateSimulation = false;
  if (earlyReturn != nullptr) *earlyReturn = false;
  if (lastSuccessfulTime != nullptr) *lastSuccessfulTime = reached;
  return statusOf(r);
}

fmi3Status fmi3EnterStepMode(fmi3Instance instance) { return notProvided(instance, "fmi3EnterStepMode"); }
fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3Int32[],
                                    fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3GetOutputDerivatives (maxOutputDerivativeOrder = 0)");
}

// ---- Not provided: derivatives, configuration mode, clocks, model exchange, scheduled execution --
fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference[], size_t,
                                        const fmi3ValueReference[], size_t, const fmi3Float64[], size_t,
                                        fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3GetDirectionalDerivative");
}
fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference[], size_t,
                                    const fmi3ValueReference[], size_t, const fmi3Float64[], size_t, fmi3Float64[],
                                    size_t) {
  return notProvided(instance, "fmi3GetAdjointDerivative");
}
fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
  return notProvided(instance, "fmi3EnterConfigurationMode");
}
fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
  return notProvided(instance, "fmi3ExitConfigurationMode");
}
fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3Float64[],
                                  fmi3IntervalQualifier[]) {
  return notProvided(instance, "fmi3GetIntervalDecimal");
}
fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3UInt64[],
                                   fmi3UInt64[], fmi3IntervalQualifier[]) {
  return notProvided(instance, "fmi3GetIntervalFraction");
}
fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3Float64[]) {
  return notProvided(instance, "fmi3GetShiftDecimal");
}
fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, fmi3UInt64[],
                                fmi3UInt64[]) {
  return notProvided(instance, "fmi3GetShiftFraction");
}
fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3Float64[]) {
  return notProvided(instance, "fmi3SetIntervalDecimal");
}
fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3UInt64[],
                                   const fmi3UInt64[]) {
  return notProvided(instance, "fmi3SetIntervalFraction");
}
fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3Float64[]) {
  return notProvided(instance, "fmi3SetShiftDecimal");
}
fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference[], size_t, const fmi3UInt64[],
                                const fmi3UInt64[]) {
  return notProvided(instance, "fmi3SetShiftFraction");
}
fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
  return notProvided(instance, "fmi3EvaluateDiscreteStates");
}
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean*, fmi3Boolean*, fmi3Boolean*, fmi3Boolean*,
                                    fmi3Boolean*, fmi3Float64*) {
  return notProvided(instance, "fmi3UpdateDiscreteStates");
}
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
  return notProvided(instance, "fmi3EnterContinuousTimeMode");
}
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean, fmi3Boolean*, fmi3Boolean*) {
  return notProvided(instance, "fmi3CompletedIntegratorStep");
}
fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64) { return notProvided(instance, "fmi3SetTime"); }
fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3SetContinuousStates");
}
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3GetContinuousStateDerivatives");
}
fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3GetEventIndicators");
}
fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3GetContinuousStates");
}
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64[], size_t) {
  return notProvided(instance, "fmi3GetNominalsOfContinuousStates");
}
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t*) {
  return notProvided(instance, "fmi3GetNumberOfEventIndicators");
}
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t*) {
  return notProvided(instance, "fmi3GetNumberOfContinuousStates");
}
fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference, fmi3Float64) {
  return notProvided(instance, "fmi3ActivateModelPartition");
}

}  // extern "C"
