// The solver interface. A solver owns only its private scratch (springs,
// colourings it built, matrices, hash tables); model and state belong to World,
// so switching solvers keeps positions, velocities and pins.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/core/backend.h"
#include "sim/core/timer.h"
#include "sim/model/cloth_model.h"
#include "sim/scene/environment.h"
#include "sim/scene/grab.h"
#include "sim/scene/obstacle_set.h"
#include "sim/solvers/param_table.h"
#include "sim/state.h"
#include "sim/stats.h"

namespace cb {

/// What a solver reads during one frame. All references outlive the call.
struct StepInputs {
  const ClothModel& model;
  const Environment& env;
  const ObstacleSet& obstacles;  ///< poses at the start (prev) and end of the frame
  const Grab& grab;
  float dt = 1.f / 60;           ///< s, frame time step
  int substeps = 1;              ///< sub-steps the scene asks for (a solver may use its own)
  double time = 0;               ///< s, simulated time at the start of the frame
  bool self_collision = true;    ///< the UI's/scene's self-collision switch
  StageTimer& timer;             ///< per-stage timing (begin/end by name)
  FrameStats& stats;             ///< counters the solver reports
  /// The world's exact check found no intersecting triangle pair in the state
  /// this frame starts from (cloth against cloth and the mesh obstacles at their
  /// start pose), and nothing moved a vertex since: a solver need not look for
  /// tangles. False when unknown (first frame, checks off, user edits).
  bool start_clean = false;
};

/// Points and lines a solver offers for debug drawing (host memory, world space).
struct DebugDraw {
  std::vector<Vec3f> points;       ///< e.g. vertices in contact
  std::vector<float> point_radii;  ///< (points) m; 0 = draw as a dot
  std::vector<Vec3f> lines;        ///< pairs of endpoints, e.g. contact normals
};

class Solver {
 public:
  virtual ~Solver() = default;
  /// Registry name ("verlet", "pbd", "icloth").
  virtual std::string name() const = 0;
  /// The current parameters.
  virtual ParamTable params() const = 0;
  /// Validates and applies a table; returns "" or why it was refused (then nothing changes).
  virtual std::string set_params(const ParamTable& table) = 0;
  /// Advances the state by one frame of in.dt seconds (sub-steps inside).
  /// Never moves vertices whose inverse mass is 0.
  virtual void step(const StepInputs& in, SimState& state) = 0;
  /// Fills debug geometry (only called when the UI shows overlays).
  virtual void debug_draw(DebugDraw& out) const { (void)out; }
  /// Backend bytes held by the solver's scratch.
  virtual size_t device_bytes() const { return 0; }
};

/// How a registry entry builds a solver for a model on a backend.
using SolverFactory = std::unique_ptr<Solver> (*)(const Context& ctx, const ClothModel& model);

struct SolverEntry {
  const char* name;
  const char* title;        ///< for the UI, e.g. "I-Cloth (Tang et al. 2018)"
  SolverFactory make;
  ParamTable (*defaults)();                  ///< its parameters at their defaults (no model needed)
  std::string (*check)(const ParamTable&);   ///< "" when a solver would accept the table, else why not
};

/// All user-facing solvers, in UI order. Adding a solver = one line in registry.cpp.
const std::vector<SolverEntry>& solver_registry();
/// The entry named `name`, or nullptr.
const SolverEntry* find_solver(const std::string& name);
/// "icloth, pbd, verlet" (for error messages).
std::string solver_names();

}  // namespace cb
