// World: model + state + scene + active solver + user interaction + stats.
// The one object the app and the CLI drive:
//   World w(ctx, load_scene("scenes/sheet_on_sphere.json"));
//   for (...) w.step();
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/backend.h"
#include "sim/core/timer.h"
#include "sim/model/cloth_model.h"
#include "sim/scene/grab.h"
#include "sim/scene/obstacle_set.h"
#include "sim/scene/scene.h"
#include "sim/solvers/solver.h"
#include "sim/state.h"
#include "sim/stats.h"

namespace cb {

/// What the Simulation panel edits: applied between frames after validation.
struct SimSettings {
  float dt = 1.f / 60;  ///< s
  int substeps = 4;
  bool self_collision = true;
  /// Count intersecting triangle pairs after every frame (stats "intersecting
  /// pairs", "self-intersections", "cloth-cloth", "cloth-obstacle"): an exact test
  /// behind a hash-grid broad phase, cheap next to a solver step.
  bool check_intersections = true;
  std::string validate() const;
};

class World {
 public:
  /// Builds model, state, obstacles and the scene's solver (or the first
  /// registered one). Throws cb::Error for a bad scene.
  World(const Context& ctx, SceneSpec scene);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // --- simulation -----------------------------------------------------------
  /// Advances one frame of settings().dt: obstacles first (kinematic), then cloth.
  void step();
  /// Back to the initial state and time 0 (pins: the scene's). The solver
  /// starts afresh with its current parameters: what it kept of the run (I-Cloth's
  /// resting friction, whether it has seen a clean start) goes, so the run after
  /// a reset is the one a fresh load gives.
  void reset();
  const SimSettings& settings() const { return settings_; }
  /// Validates and applies; returns "" or why not.
  std::string set_settings(const SimSettings& s);

  // --- solvers --------------------------------------------------------------
  /// Switches to a registered solver, keeping positions, velocities and pins.
  /// Parameters edited on a solver come back when the user returns to it; a
  /// solver not used before starts with what the scene gives it
  /// (SceneSpec::params_of), else its defaults. Returns "" or why not (unknown name).
  std::string set_solver(const std::string& name);
  /// Installs any solver (tests use a gravity-only solver this way).
  void set_solver(std::unique_ptr<Solver> solver);
  const Solver* solver() const { return solver_.get(); }
  std::string solver_name() const { return solver_ ? solver_->name() : std::string(); }
  /// Validates and applies solver parameters; "" or why refused.
  std::string set_solver_params(const ParamTable& table);
  /// Sets one parameter from text ("iterations", "20"); "" or why refused.
  std::string set_solver_param(const std::string& name, const std::string& value);

  // --- interaction ----------------------------------------------------------
  /// Grabs the surface point of triangle `tri` at barycentric `bary` and pulls it
  /// towards `target` (m) until grab_end().
  void grab_begin(int tri, Vec3f bary, Vec3f target);
  void grab_move(Vec3f target);
  void grab_end();
  const Grab& grab() const { return grab_; }

  bool is_pinned(uint32_t v) const { return pinned_[v] != 0; }
  void set_pinned(uint32_t v, bool pinned);
  /// Moves a pinned vertex (the user dragging a pin); no-op for free vertices.
  void move_pinned(uint32_t v, Vec3f position);
  /// Restores the scene's pins.
  void clear_pins();
  std::vector<uint32_t> pinned_vertices() const;

  // --- access ---------------------------------------------------------------
  const Context& context() const { return ctx_; }
  const ClothModel& model() const { return model_; }
  const SimState& state() const { return state_; }
  /// Writable state (tests, tools): the next frame no longer counts as starting clean.
  SimState& mutable_state() {
    start_clean_ = false;
    return state_;
  }
  HostState host_state() const { return download(state_); }
  /// Host copy of the positions (m), (nverts).
  std::vector<Vec3f> positions() const { return state_.x.to_host(); }
  const SceneSpec& scene() const { return scene_; }
  const ObstacleSet& obstacles() const { return obstacles_; }
  const FrameStats& stats() const { return stats_; }
  double time() const { return time_; }
  int frame() const { return frame_; }
  const std::vector<std::string>& warnings() const { return scene_.warnings; }
  /// Intersecting triangle pairs found after the last frame (when
  /// settings().check_intersections): cloth triangle ids are [0, ntris), obstacle
  /// triangles ntris + j (j into obstacles().mesh_tris).
  const std::vector<Int2>& intersecting_pairs() const { return intersecting_; }

 private:
  void init_state();
  void check_params_of() const;
  void update_obstacles(double t0, double t1);
  void upload_inverse_mass();
  void finish_stats(double step_ms);
  void count_intersecting_pairs();
  void warn_of_start_intersections();

  Context ctx_;
  SceneSpec scene_;
  ClothModel model_;
  SimState state_;
  /// The last frame's exact check found no intersecting pair and nothing has moved
  /// a vertex since (StepInputs::start_clean).
  bool start_clean_ = false;
  /// The load's check (warn_of_start_intersections) found no intersecting pair:
  /// the scene's start, and each reset's, is clean.
  bool clean_at_load_ = false;
  ObstacleSet obstacles_;
  std::unique_ptr<Solver> solver_;
  SimSettings settings_;
  Grab grab_;
  std::vector<uint8_t> pinned_;        ///< (nverts) 1 = pinned
  std::vector<uint8_t> scene_pinned_;  ///< (nverts) the scene's pins
  std::vector<float> free_inv_mass_;   ///< (nverts) 1/kg when not pinned
  StageTimer timer_;
  FrameStats stats_;
  DeviceBuffer<float> scratch_;        ///< (max(nedges, nverts)) strain per edge / NaN flags, for stats
  DeviceBuffer<Int2> edges_dev_;       ///< (nedges) model edges on the backend, for stats
  DeviceBuffer<float> rest_dev_;       ///< (nedges) m, rest lengths on the backend
  DeviceBuffer<float> mass_dev_;       ///< (nverts) kg, vertex masses on the backend (kinetic energy)
  DeviceBuffer<Int3> tris_dev_;        ///< (ntris) cloth triangles on the backend
  DeviceBuffer<uint32_t> tri_piece_dev_;  ///< (ntris) cloth piece of each triangle
  std::vector<Int2> intersecting_;     ///< pairs found after the last frame
  std::map<std::string, ParamTable> saved_params_;  ///< solver name -> its parameters when last left
  double time_ = 0;
  int frame_ = 0;
};

}  // namespace cb
