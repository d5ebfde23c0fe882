// Which plant configuration this FMU is built from (BELTSIM_FMU_PC_CONFIG: 0 microcontroller,
// 1 PC; firmware/plant_config.hpp), and the identity strings that modelDescription.xml and the
// library share: model identifier and instantiation token. The token changes with the
// configuration and with the layout version of the saved state, so an importer cannot pair a
// description with another build's library.
#pragma once
#include "../plant_config.hpp"
#include "fmu_instance.hpp"

#ifndef BELTSIM_FMU_PC_CONFIG
#error "BELTSIM_FMU_PC_CONFIG must be 0 (microcontroller configuration) or 1 (PC configuration)"
#endif

namespace beltsim::fmu {

#if BELTSIM_FMU_PC_CONFIG
constexpr int kElements = fw::kPcElements;
constexpr BuildConfiguration kBuild{"beltsim_pc", &fw::pcPlantConfig};
constexpr const char* kConfigurationName = "PC configuration (60 elements, 1e-4 s, the paper's contact values)";
#define BELTSIM_FMU_TOKEN_CONFIG "pc-60"
#else
constexpr int kElements = fw::kMicrocontrollerElements;
constexpr BuildConfiguration kBuild{"beltsim_mcu", &fw::microcontrollerPlantConfig};
constexpr const char* kConfigurationName =
    "microcontroller configuration (24 elements, 1e-3 s, contact stiffness / 10)";
#define BELTSIM_FMU_TOKEN_CONFIG "mcu-24"
#endif

// Version of the saved-state layout (Simulation<NE>); bump it when Simulation or the plant's
// members change.
constexpr unsigned kStateLayoutVersion = 1;
#define BELTSIM_FMU_STATE_LAYOUT "1"
constexpr const char* kInstantiationToken =
    "{beltsim-fmi3-" BELTSIM_FMU_TOKEN_CONFIG "-state" BELTSIM_FMU_STATE_LAYOUT "}";

// Fixed pools (static storage; no heap): instances per process and saved states per process.
constexpr int kMaxInstances = 4;
constexpr int kMaxStates = 8;

}  // namespace beltsim::fmu
