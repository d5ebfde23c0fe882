// The hil scenario host_sim/scenarios/hil_belt_drive.toml describes the firmware's
// microcontroller plant (firmware/plant_config.hpp, torque-driven motor): the host plant of
// `beltsim hil` and the Cortex-M7 image must answer a controller with the same bits. The slow
// check of that is hil_cortex_m7 (two minutes of QEMU, optimized host preset only); this one
// catches a scenario file that drifted from the configuration in every host build: both plants
// run the same commands and must give bit-identical outputs. The same check holds the firmware's
// configuration files (firmware/configs/*.toml) to what the firmware was generated from.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include "beltsim/plant.hpp"
#include "hil.hpp"
#include "plant_config.hpp"
#include "scenario.hpp"

#if !defined(BELTSIM_HIL_SCENARIO) || !defined(BELTSIM_FIRMWARE_MCU_SCENARIO) || !defined(BELTSIM_FIRMWARE_PC_SCENARIO)
#error "BELTSIM_HIL_SCENARIO, BELTSIM_FIRMWARE_MCU_SCENARIO, BELTSIM_FIRMWARE_PC_SCENARIO: scenario file paths"
#endif

namespace {
using namespace beltsim;

// Both plants from their configurations run the same commands (a motor ramp to 40 N m or
// 40 rad/s... as the mode takes it, then a 25 N m load: sticking and slipping) and must give
// bit-identical outputs for `steps` steps.
template <int NE>
void expectSameBits(const PlantConfig& a, const PlantConfig& b, int steps) {
  static BeltDrivePlant<NE> first, second;  // static: ~100 KB of model state each
  ASSERT_TRUE(first.setUp(a).ok());
  ASSERT_TRUE(second.setUp(b).ok());
  ASSERT_TRUE(first.start().converged);
  ASSERT_TRUE(second.start().converged);
  for (int k = 1; k <= steps; ++k) {
    PlantCommand command;
    command.motor = linearRamp(k * a.stepSize, 0.0, 0.1, 0.0, 40.0);
    command.loadTorque = 3 * k >= 2 * steps ? 25.0 : 0.0;
    const PlantOutput x = first.step(command);
    const PlantOutput y = second.step(command);
    ASSERT_EQ(std::memcmp(x.speed, y.speed, sizeof x.speed), 0) << "step " << k;
    ASSERT_EQ(std::memcmp(x.spanForce, y.spanForce, sizeof x.spanForce), 0) << "step " << k;
    ASSERT_EQ(x.newtonIterations, y.newtonIterations) << "step " << k;
    ASSERT_EQ(x.jacobianUpdates, y.jacobianUpdates) << "step " << k;
  }
}

PlantConfig fromScenarioFile(const std::string& path, int& elements) {
  host::Scenario scenario;
  const host::ParseResult parsed = host::loadScenario(path, {}, scenario);
  EXPECT_TRUE(parsed.ok) << parsed.error;
  PlantConfig config;
  std::string error;
  EXPECT_TRUE(host::plantConfigFromScenario(scenario, config, error)) << error;
  elements = scenario.elements;
  return config;
}

TEST(HilScenario, DescribesTheFirmwaresMicrocontrollerPlantBitForBit) {
  int elements = 0;
  const PlantConfig fromScenario = fromScenarioFile(BELTSIM_HIL_SCENARIO, elements);
  ASSERT_EQ(elements, fw::kMicrocontrollerElements);
  expectSameBits<fw::kMicrocontrollerElements>(fromScenario, fw::microcontrollerPlantConfig(MotorMode::kTorque), 300);
}

// A scenario that asks for what the firmware plant cannot do is refused by name, not run with
// the option silently dropped.
TEST(HilScenario, RefusesWhatTheFirmwarePlantCannotRun) {
  const std::pair<const char*, const char*> cases[] = {
      {"static.start=rest", "key 'static.start'"},
      {"contact.segment_normals=false", "key 'contact.segment_normals'"},
      {"contact.normal_exponent=2", "key 'contact.normal_exponent'"},
      {"friction.law=continuous", "key 'friction.law'"},
  };
  for (const auto& [setting, key] : cases) {
    host::Scenario scenario;
    const host::ParseResult parsed = host::loadScenario(BELTSIM_HIL_SCENARIO, {setting}, scenario);
    ASSERT_TRUE(parsed.ok) << setting << ": " << parsed.error;
    PlantConfig config;
    std::string error;
    EXPECT_FALSE(host::plantConfigFromScenario(scenario, config, error)) << setting;
    EXPECT_NE(error.find(key), std::string::npos) << setting << ": " << error;
  }
}

// The firmware's configurations are generated from scenario files at configure time by a
// separate reader (scripts/scenario_to_plant_config.py, Python): the C++ scenario reader of
// `beltsim hil` must give the same plant from the same file, bit for bit.
TEST(FirmwareConfigs, MicrocontrollerConfigurationIsItsScenarioFile) {
  int elements = 0;
  const PlantConfig fromScenario = fromScenarioFile(BELTSIM_FIRMWARE_MCU_SCENARIO, elements);
  ASSERT_EQ(elements, fw::kMicrocontrollerElements);
  ASSERT_EQ(fromScenario.motorMode, fw::kMicrocontrollerMotorMode);
  expectSameBits<fw::kMicrocontrollerElements>(fromScenario, fw::microcontrollerPlantConfig(fw::kMicrocontrollerMotorMode),
                                               300);
}

TEST(FirmwareConfigs, PcConfigurationIsItsScenarioFile) {
  int elements = 0;
  const PlantConfig fromScenario = fromScenarioFile(BELTSIM_FIRMWARE_PC_SCENARIO, elements);
  ASSERT_EQ(elements, fw::kPcElements);
  ASSERT_EQ(fromScenario.motorMode, fw::kPcMotorMode);
  expectSameBits<fw::kPcElements>(fromScenario, fw::pcPlantConfig(fw::kPcMotorMode), 300);
}

}  // namespace
