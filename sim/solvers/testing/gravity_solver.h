// A gravity-only solver for tests of World and the compute layer: every free
// vertex follows the exact constant-acceleration update
//   x(t+h) = x + v h + g h^2 / 2,   v(t+h) = v + g h
// so a test can compare with x0 + v0 t + g t^2 / 2. Not in the registry: users
// never see it.
#pragma once

#include <memory>

#include "sim/solvers/solver.h"

namespace cb {

std::unique_ptr<Solver> make_gravity_test_solver(const Context& ctx, const ClothModel& model);

}  // namespace cb
