// The solver registry: one line per solver. The UI, the CLI and scene files
// offer exactly what is listed here.
#include <string>

#include "sim/solvers/solver.h"
#include "sim/solvers/pbd/solver.h"
#include "sim/solvers/verlet/solver.h"
#include "sim/solvers/icloth/solver.h"

namespace cb {

const std::vector<SolverEntry>& solver_registry() {
  static const std::vector<SolverEntry> entries = {
      {"pbd", "Position-based dynamics (XPBD, coloured Gauss-Seidel)", make_pbd_solver},
      {"verlet", "Verlet mass-spring + virtual spheres (Zheng 2021)", make_verlet_solver},
      {"icloth", "I-Cloth: implicit + CCD + impact zones (Tang 2018)", make_icloth_solver},
  };
  return entries;
}

const SolverEntry* find_solver(const std::string& name) {
  for (const SolverEntry& e : solver_registry())
    if (name == e.name) return &e;
  return nullptr;
}

std::string solver_names() {
  std::string s;
  for (const SolverEntry& e : solver_registry()) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s.empty() ? std::string("(none)") : s;
}

}  // namespace cb
