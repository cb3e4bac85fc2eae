// The solver registry: one line per solver. The UI, the CLI and scene files
// offer exactly what is listed here.
#include <string>

#include "sim/solvers/solver.h"

namespace cb {

const std::vector<SolverEntry>& solver_registry() {
  static const std::vector<SolverEntry> entries = {
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
