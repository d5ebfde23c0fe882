// The drive's two modes and the static phase's controls (docs/model_start_and_benchmark.md §8.3): in the static
// solve gravity is scaled by a load factor, a stabilizer s adds s M (q - q_previous) to the
// residual, the circle rotations and node 0's x sit at their locked positions, and the previous
// load step's coordinates are where fixed coordinates stay.
#pragma once
#include <cstdint>

namespace beltsim {

enum class DriveMode : std::uint8_t { kDynamic, kStatic };

template <class Vector>
struct StaticPhase {
  DriveMode mode = DriveMode::kDynamic;
  double loadFactor = 1.0;  // on gravity and the floating circles' applied forces
  double stabilizer = 0.0;  // s, 1/s^2
  Vector previous = Vector::Zero();  // q of the previous load step
  Vector locks = Vector::Zero();     // locked positions (circle rotations, node 0's x)

  bool isStatic() const { return mode == DriveMode::kStatic; }
};

}  // namespace beltsim
