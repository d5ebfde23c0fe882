// The hil scenario host_sim/scenarios/hil_belt_drive.toml describes the firmware's
// microcontroller plant (firmware/plant_config.hpp, torque-driven motor): the host plant of
// `beltsim hil` and the Cortex-M7 image must answer a controller with the same bits. The slow
// check of that is hil_cortex_m7 (two minutes of QEMU, optimized host preset only); this one
// catches a scenario file that drifted from the configuration in every host build: both plants
// run the same commands and must give bit-identical outputs.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "beltsim/plant.hpp"
#include "hil.hpp"
#include "plant_config.hpp"
#include "scenario.hpp"

#ifndef BELTSIM_HIL_SCENARIO
#error "BELTSIM_HIL_SCENARIO: path of host_sim/scenarios/hil_belt_drive.toml"
#endif

namespace {
using namespace beltsim;

TEST(HilScenario, DescribesTheFirmwaresMicrocontrollerPlantBitForBit) {
  host::Scenario scenario;
  const host::ParseResult parsed = host::loadScenario(BELTSIM_HIL_SCENARIO, {}, scenario);
  ASSERT_TRUE(parsed.ok) << parsed.error;
  PlantConfig fromScenario;
  std::string error;
  ASSERT_TRUE(host::plantConfigFromScenario(scenario, fromScenario, error)) << error;
  ASSERT_EQ(scenario.elements, fw::kMicrocontrollerElements);

  static BeltDrivePlant<fw::kMicrocontrollerElements> hostPlant, firmwarePlant;
  ASSERT_TRUE(hostPlant.setUp(fromScenario).ok());
  ASSERT_TRUE(firmwarePlant.setUp(fw::microcontrollerPlantConfig(MotorMode::kTorque)).ok());
  ASSERT_TRUE(hostPlant.start().converged);
  ASSERT_TRUE(firmwarePlant.start().converged);
  // 0.3 s: a motor torque ramp to 40 N m, then a 25 N m load from 0.2 s (sticking and slipping).
  for (int k = 1; k <= 300; ++k) {
    PlantCommand command;
    command.motor = linearRamp(k * 1e-3, 0.0, 0.1, 0.0, 40.0);
    command.loadTorque = k >= 200 ? 25.0 : 0.0;
    const PlantOutput a = hostPlant.step(command);
    const PlantOutput b = firmwarePlant.step(command);
    ASSERT_EQ(std::memcmp(a.speed, b.speed, sizeof a.speed), 0) << "step " << k;
    ASSERT_EQ(std::memcmp(a.spanForce, b.spanForce, sizeof a.spanForce), 0) << "step " << k;
    ASSERT_EQ(a.newtonIterations, b.newtonIterations) << "step " << k;
    ASSERT_EQ(a.jacobianUpdates, b.jacobianUpdates) << "step " << k;
  }
}

}  // namespace
