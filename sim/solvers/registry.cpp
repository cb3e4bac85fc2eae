// The solver registry: one line per solver. The UI, the CLI and scene files
// offer exactly what is listed here.
#include <string>

#include "sim/solvers/solver.h"
#include "sim/solvers/pbd/solver.h"
#include "sim/solvers/verlet/solver.h"
#include "sim/solvers/icloth/solver.h"

namespace cb {
namespace {

// Each solver's parameter table and its check, without a model (scene files
// name parameters of solvers they do not start with: SceneSpec::params_of).
ParamTable pbd_defaults() { return PbdParams{}.to_table(); }
std::string pbd_check(const ParamTable& t) { return PbdParams::from_table(t).validate(); }
ParamTable verlet_defaults() { return VerletParams{}.to_table(); }
std::string verlet_check(const ParamTable& t) { return VerletParams{}.from_table(t); }
ParamTable icloth_defaults() { return icloth::IClothParams{}.to_table(); }
std::string icloth_check(const ParamTable& t) {
  icloth::IClothParams p;
  return icloth::IClothParams::from_table(t, &p);
}

}  // namespace

const std::vector<SolverEntry>& solver_registry() {
  static const std::vector<SolverEntry> entries = {
      {"pbd", "Position-based dynamics (XPBD, coloured Gauss-Seidel)", make_pbd_solver, pbd_defaults, pbd_check},
      {"verlet", "Verlet mass-spring + virtual spheres (Zheng 2021)", make_verlet_solver, verlet_defaults,
       verlet_check},
      {"icloth", "I-Cloth: implicit + CCD + impact zones (Tang 2018)", make_icloth_solver, icloth_defaults,
       icloth_check},
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
