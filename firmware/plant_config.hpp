// The plant configurations the firmware is built for: two scenario files under version control,
// firmware/configs/microcontroller.toml (Cortex-M7, 1 kHz loop: 16 eulerian elements, 1e-3 s, a
// tenth of the paper's contact stiffness) and firmware/configs/pc.toml (host / aarch64 HIL
// computer, 10 kHz loop: 16 eulerian elements, 1e-4 s, the paper's values). Their comments give the reasons for the
// values. At configure time scripts/scenario_to_plant_config.py writes each as a header of the
// build (CMake options BELTSIM_FIRMWARE_MCU_SCENARIO / BELTSIM_FIRMWARE_PC_SCENARIO choose other
// files): the element count is a template argument (static allocation), the rest is data.
//   kMicrocontrollerElements, kMicrocontrollerMotorMode, microcontrollerPlantConfig(MotorMode)
//   kPcElements, kPcMotorMode, pcPlantConfig(MotorMode)
// `beltsim hil` and `beltsim run` read the same files as scenarios; the test
// host_hil_scenario (FirmwareConfigs.*) requires both readings to give the same bits.
#pragma once
#include "microcontroller_plant_config.hpp"
#include "pc_plant_config.hpp"
