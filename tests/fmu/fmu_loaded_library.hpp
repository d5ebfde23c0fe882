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

}  // namespace beltsim::test
