#include "sim/world.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sim/core/algorithms.h"
#include "sim/collision/penetration.h"
#include "sim/core/error.h"
#include "sim/scene/motion.h"
#include "sim/start_check.h"
#include "sim/model/edge_strain.h"
#include "sim/model/kinetic_energy.h"
#include "sim/world_kernels.h"

namespace cb {

std::string SimSettings::validate() const {
  if (!(dt > 0) || !(dt <= 0.1f)) return "time step must be in (0, 0.1] s";
  if (substeps < 1 || substeps > 1000) return "substeps must be in [1, 1000]";
  return "";
}

World::World(const Context& ctx, SceneSpec scene) : ctx_(ctx), scene_(std::move(scene)), timer_(ctx) {
  settings_.dt = scene_.dt;
  settings_.substeps = scene_.substeps;
  settings_.self_collision = scene_.self_collision;
  std::string err = settings_.validate();
  if (!err.empty()) throw Error(scene_.path + ": " + err);
  std::vector<std::string> mesh_warnings;  // the scene loader checked its meshes already: each warning once
  model_ = build_cloth_model(cloth_inputs(scene_), &mesh_warnings);
  for (std::string& w : mesh_warnings)
    if (std::find(scene_.warnings.begin(), scene_.warnings.end(), w) == scene_.warnings.end())
      scene_.warnings.push_back(std::move(w));
  init_state();
  update_obstacles(0.0, 0.0);
  warn_of_start_intersections();
  check_params_of();
  const std::string& name = scene_.solver.empty() && !solver_registry().empty() ? solver_registry()[0].name : scene_.solver;
  if (!name.empty()) {
    std::string serr = set_solver(name);
    if (!serr.empty()) throw Error(scene_.path + ": /solver: " + serr);
    for (const auto& kv : scene_.solver_params) {
      std::string perr = set_solver_param(kv.first, kv.second);
      if (!perr.empty()) throw Error(scene_.path + ": /solver/params/" + kv.first + ": " + perr);
    }
  }
}

World::~World() = default;

// The parameters the scene gives other solvers (SceneSpec::params_of) are
// checked at load, so that a bad one is reported with the file, not at a switch.
void World::check_params_of() const {
  for (const auto& [solver, params] : scene_.params_of) {
    const std::string where = scene_.path + ": /solver/params_of/" + solver;
    const SolverEntry* e = find_solver(solver);
    if (!e) throw Error(where + ": unknown solver '" + solver + "' (available: " + solver_names() + ")");
    ParamTable t = e->defaults();
    for (const auto& [name, value] : params) {
      std::string err = t.set_text(name, value);
      if (!err.empty()) throw Error(where + "/" + name + ": " + err);
    }
    std::string err = e->check(t);
    if (!err.empty()) throw Error(where + ": " + err);
  }
}

void World::init_state() {
  const size_t n = model_.num_vertices();
  free_inv_mass_.resize(n);
  for (size_t v = 0; v < n; ++v) free_inv_mass_[v] = model_.mass[v] > 0 ? 1.f / model_.mass[v] : 0.f;
  scene_pinned_.assign(n, 0);
  for (size_t c = 0; c < scene_.cloths.size(); ++c)
    for (uint32_t v : scene_.cloths[c].pinned) scene_pinned_[model_.pieces[c].first_vertex + v] = 1;
  pinned_ = scene_pinned_;
  HostState h;
  h.x = model_.rest;
  h.x_prev = model_.rest;
  h.v.assign(n, Vec3f{});
  h.inv_mass.resize(n);
  upload(ctx_, h, state_);
  upload_inverse_mass();
  time_ = 0;
  frame_ = 0;
  grab_ = Grab{};
  start_clean_ = clean_at_load_;  // the scene's start, as checked at load
  stats_ = FrameStats{};
}

void World::reset() {
  init_state();
  update_obstacles(0.0, 0.0);
  // a fresh solver of the same name, which set_solver gives the parameters it
  // leaves with (a solver set directly, tests' own, has no name to restart from)
  if (solver_ && find_solver(solver_->name())) set_solver(solver_->name());
}

std::string World::set_settings(const SimSettings& s) {
  std::string err = s.validate();
  if (err.empty()) settings_ = s;
  return err;
}

// obstacles: poses at the start (prev) and end of the frame; meshes concatenated
void World::update_obstacles(double t0, double t1) {
  ObstacleSet& o = obstacles_;
  o.shapes.clear();
  o.shapes_prev.clear();
  o.shape_obstacle.clear();
  o.meshes.clear();
  o.mesh_x.clear();
  o.mesh_x_prev.clear();
  bool rebuild_tris = o.mesh_tris.empty();
  if (rebuild_tris) o.mesh_tris.clear();
  std::vector<Vec3f> tmp;
  for (uint32_t i = 0; i < scene_.obstacles.size(); ++i) {
    const ObstacleSpec& spec = scene_.obstacles[i];
    if (spec.kind != ObstacleKind::Mesh) {
      o.shapes_prev.push_back(shape_at(spec, t0));
      o.shapes.push_back(shape_at(spec, t1));
      o.shape_obstacle.push_back(i);
      continue;
    }
    MeshRange r;
    r.obstacle = i;
    r.first_vertex = uint32_t(o.mesh_x.size());
    r.num_vertices = uint32_t(spec.mesh.positions.size());
    r.first_tri = uint32_t(o.meshes.empty() ? 0 : o.meshes.back().first_tri + o.meshes.back().num_tris);
    r.num_tris = uint32_t(spec.mesh.tris.size());
    r.friction = spec.friction;
    mesh_at(spec, t0, tmp);
    o.mesh_x_prev.insert(o.mesh_x_prev.end(), tmp.begin(), tmp.end());
    mesh_at(spec, t1, tmp);
    o.mesh_x.insert(o.mesh_x.end(), tmp.begin(), tmp.end());
    if (rebuild_tris)
      for (const Int3& t : spec.mesh.tris)
        o.mesh_tris.push_back({t.a + int32_t(r.first_vertex), t.b + int32_t(r.first_vertex), t.c + int32_t(r.first_vertex)});
    o.meshes.push_back(r);
  }
  o.mesh_version++;
  o.sync(ctx_);
}

void World::step() {
  auto t0 = std::chrono::steady_clock::now();
  const double dt = settings_.dt;
  stats_.counters.clear();
  {
    ScopedStage s(timer_, "obstacles");
    update_obstacles(time_, time_ + dt);
  }
  state_.x_prev.copy_from(state_.x);
  if (solver_) {
    StepInputs in{model_, scene_.env, obstacles_, grab_, settings_.dt, settings_.substeps, time_,
                  settings_.self_collision, timer_, stats_, start_clean_};
    solver_->step(in, state_);
  }
  time_ += dt;
  frame_++;
  synchronize(ctx_);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  finish_stats(ms);
}

void World::finish_stats(double step_ms) {
  stats_.frame = frame_;
  stats_.sim_time = time_;
  stats_.step_ms = step_ms;
  const int ne = int(model_.num_edges());
  if (scratch_.size() < size_t(std::max<size_t>(ne, model_.num_vertices()))) {
    scratch_.resize(ctx_, std::max<size_t>(ne, model_.num_vertices()));
  }
  // edges and rest lengths are uploaded once
  if (edges_dev_.size() != size_t(ne)) {
    edges_dev_.upload(ctx_, model_.topo.edges);
    rest_dev_.upload(ctx_, model_.rest_edge_length);
  }
  edge_strain(ctx_, state_.x.data(), edges_dev_.data(), rest_dev_.data(), ne, scratch_.data());
  stats_.min_strain = ne ? reduce_min(ctx_, scratch_.data(), size_t(ne)) : 0.f;
  stats_.max_strain = ne ? reduce_max(ctx_, scratch_.data(), size_t(ne)) : 0.f;
  stats_.has_nan = any_nonfinite(ctx_, state_.x.data(), state_.v.data(), int(state_.size()), scratch_);
  if (mass_dev_.size() != model_.num_vertices()) mass_dev_.upload(ctx_, model_.mass);
  stats_.set("kinetic energy", kinetic_energy(ctx_, mass_dev_.data(), state_.v.data(), int(state_.size()), scratch_));
  start_clean_ = false;
  if (settings_.check_intersections) {
    ScopedStage s(timer_, "intersection check");
    count_intersecting_pairs();
    // the next frame starts from these positions, and its obstacles from this
    // frame's end poses (update_obstacles is a function of time)
    start_clean_ = stats_.get("intersecting pairs", -1) == 0;
  }
  stats_.stages = timer_.collect();
  stats_.device_bytes = state_.x.bytes() * 3 + state_.inv_mass.bytes() + (solver_ ? solver_->device_bytes() : 0);
}

// the scene's start state checked once at load (start_check.h); the counters
// and pairs are the first frame's to fill, so they are cleared again. The check
// vouches for the first frame's start, as a frame's check does for the next.
void World::warn_of_start_intersections() {
  if (!settings_.check_intersections) return;
  count_intersecting_pairs();
  for (std::string& w : start_intersection_warnings(model_, intersecting_)) scene_.warnings.push_back(std::move(w));
  clean_at_load_ = intersecting_.empty();
  start_clean_ = clean_at_load_;  // the first frame starts from the state just checked
  intersecting_.clear();
  stats_ = FrameStats{};
}

void World::count_intersecting_pairs() {
  if (tris_dev_.size() != model_.num_tris()) {
    tris_dev_.upload(ctx_, model_.tris);
    std::vector<uint32_t> piece(model_.num_tris());
    for (size_t t = 0; t < piece.size(); ++t) piece[t] = model_.vert_piece[size_t(model_.tris[t].a)];
    tri_piece_dev_.upload(ctx_, piece);
  }
  TriSet cloth{state_.x.data(), tris_dev_.data(), int(tris_dev_.size()), tri_piece_dev_.data()};
  TriSet obstacle{obstacles_.d_mesh_x.data(), obstacles_.d_mesh_tris.data(), int(obstacles_.d_mesh_tris.size()),
                  nullptr};
  IntersectionCounts c = count_intersections(ctx_, cloth, obstacle, &intersecting_);
  stats_.set("intersecting pairs", double(c.total()));
  stats_.set("self-intersections", double(c.within_cloth));
  stats_.set("cloth-cloth", double(c.between_cloths));
  stats_.set("cloth-obstacle", double(c.cloth_obstacle));
}

std::string World::set_solver(const std::string& name) {
  const SolverEntry* e = find_solver(name);
  if (!e) return "unknown solver '" + name + "' (available: " + solver_names() + ")";
  if (solver_) saved_params_[solver_->name()] = solver_->params();
  set_solver(e->make(ctx_, model_));
  auto saved = saved_params_.find(name);
  if (saved != saved_params_.end()) {
    solver_->set_params(saved->second);  // was valid when saved
  } else if (auto of = scene_.params_of.find(name); of != scene_.params_of.end()) {
    ParamTable t = solver_->params();
    for (const auto& [param, value] : of->second) t.set_text(param, value);
    solver_->set_params(t);  // checked at load (check_params_of)
  }
  return "";
}

void World::set_solver(std::unique_ptr<Solver> solver) { solver_ = std::move(solver); }

std::string World::set_solver_params(const ParamTable& table) {
  if (!solver_) return "no solver is active";
  return solver_->set_params(table);
}

std::string World::set_solver_param(const std::string& name, const std::string& value) {
  if (!solver_) return "no solver is active";
  ParamTable t = solver_->params();
  std::string err = t.set_text(name, value);
  if (!err.empty()) return err;
  return solver_->set_params(t);
}

void World::grab_begin(int tri, Vec3f bary, Vec3f target) {
  if (tri < 0 || size_t(tri) >= model_.num_tris()) return;
  grab_.active = true;
  grab_.verts = model_.tris[size_t(tri)];
  grab_.bary = bary;
  grab_.target = target;
}

void World::grab_move(Vec3f target) { grab_.target = target; }
void World::grab_end() { grab_.active = false; }

void World::upload_inverse_mass() {
  std::vector<float> w(free_inv_mass_.size());
  for (size_t v = 0; v < w.size(); ++v) w[v] = pinned_[v] ? 0.f : free_inv_mass_[v];
  state_.inv_mass.upload(ctx_, w);
}

void World::set_pinned(uint32_t v, bool pinned) {
  if (v >= pinned_.size() || (pinned_[v] != 0) == pinned) return;
  pinned_[v] = pinned ? 1 : 0;
  if (pinned) {  // a pin holds still: zero its velocity
    Vec3f zero{};
    detail::buffer_copy_from_host(ctx_, state_.v.data() + v, &zero, sizeof(Vec3f));
  }
  upload_inverse_mass();
}

void World::move_pinned(uint32_t v, Vec3f p) {
  if (v >= pinned_.size() || !pinned_[v]) return;
  start_clean_ = false;
  detail::buffer_copy_from_host(ctx_, state_.x.data() + v, &p, sizeof(Vec3f));
}

void World::clear_pins() {
  pinned_ = scene_pinned_;
  upload_inverse_mass();
}

std::vector<uint32_t> World::pinned_vertices() const {
  std::vector<uint32_t> out;
  for (uint32_t v = 0; v < pinned_.size(); ++v)
    if (pinned_[v]) out.push_back(v);
  return out;
}

}  // namespace cb
