// An FMU's shared library loaded as an importer loads it: dlopen, then each fmi3* function looked
// up by name (the FMU tests that run a packaged library next to the firmware plant).
#pragma once
#include <dlfcn.h>

#include <cstdio>

#include "fmi3_api.h"

namespace beltsim::test {

inline void*& loadedFmuLibrary() {
  static void* library = nullptr;
  return library;
}

// dlopen(path); false (and the reason printed) when it fails.
inline bool loadFmuLibrary(const char* path) {
  loadedFmuLibrary() = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (loadedFmuLibrary() == nullptr) std::printf("FAIL dlopen %s: %s\n", path, dlerror());
  return loadedFmuLibrary() != nullptr;
}

// fmi3<name> of the loaded library, or nullptr.
template <typename F>
F* resolveFmi3(const char* name) {
  char full[64];
  std::snprintf(full, sizeof full, "fmi3%s", name);
  return reinterpret_cast<F*>(dlsym(loadedFmuLibrary(), full));
}

// The importer's logger: every message on stdout.
inline void printFmuMessage(fmi3InstanceEnvironment, fmi3Status status, fmi3String category, fmi3String message) {
  std::printf("[%d %s] %s\n", static_cast<int>(status), category, message);
}

// The co-simulation calls of a run, and one started instance (instantiated, initialized).
struct CoSimulation {
  decltype(fmi3InstantiateCoSimulation)* instantiate = resolveFmi3<decltype(fmi3InstantiateCoSimulation)>("InstantiateCoSimulation");
  decltype(fmi3EnterInitializationMode)* enterInit = resolveFmi3<decltype(fmi3EnterInitializationMode)>("EnterInitializationMode");
  decltype(fmi3ExitInitializationMode)* exitInit = resolveFmi3<decltype(fmi3ExitInitializationMode)>("ExitInitializationMode");
  decltype(fmi3SetFloat64)* setFloat64 = resolveFmi3<decltype(fmi3SetFloat64)>("SetFloat64");
  decltype(fmi3GetFloat64)* getFloat64 = resolveFmi3<decltype(fmi3GetFloat64)>("GetFloat64");
  decltype(fmi3DoStep)* doStep = resolveFmi3<decltype(fmi3DoStep)>("DoStep");
  decltype(fmi3FreeInstance)* freeInstance = resolveFmi3<decltype(fmi3FreeInstance)>("FreeInstance");

  // An instance in step mode at t = 0, or nullptr (the reason printed).
  fmi3Instance start(const char* name, const char* token) const {
    if (!instantiate || !enterInit || !exitInit || !setFloat64 || !getFloat64 || !doStep || !freeInstance) {
      std::printf("FAIL an fmi3 function of co-simulation is not exported\n");
      return nullptr;
    }
    fmi3Instance fmu = instantiate(name, token, "", false, false, false, false, nullptr, 0, nullptr, printFmuMessage,
                                   nullptr);
    if (fmu == nullptr || enterInit(fmu, false, 0.0, 0.0, false, 0.0) != fmi3OK || exitInit(fmu) != fmi3OK) {
      std::printf("FAIL the instance did not start\n");
      return nullptr;
    }
    return fmu;
  }
};

}  // namespace beltsim::test
