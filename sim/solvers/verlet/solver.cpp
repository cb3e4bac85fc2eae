#include "sim/solvers/verlet/solver.h"

#include <algorithm>
#include <cmath>

#include "sim/core/algorithms.h"
#include "sim/model/edge_clearance.h"
#include "sim/solvers/verlet/strain_rows.h"

namespace cb {

namespace {
// Contact lists are gathered within (1 + margin) sphere diameters so that pairs
// that close in during the response iterations are already listed.
constexpr float kListMargin = 0.25f;
// The dense grid refuses boxes above this many cells (4 bytes each: 1 GiB).
constexpr size_t kMaxDenseCells = size_t(1) << 28;
// Hash-grid buckets per sphere (rounded up to a power of two): a sparse table
// keeps other cells out of the scanned buckets (about 18 candidates per query on
// a sheet against 48 at one bucket per sphere) for 16 bytes per vertex.
constexpr float kHashTableLoad = 4.f;
}  // namespace

VerletSolver::VerletSolver(const Context& ctx, const ClothModel& model) : ctx_(ctx) {
  springs_ = build_springs(model);
  float L = mean_structural_length(springs_);
  if (!(L > 0)) L = model.rest_edge_length.empty() ? 0.01f : model.rest_edge_length[0];
  rest_length_ = L;
  radius_ = 0.5f * L * params_.radius_scale;
  const size_t n = model.num_vertices();
  std::vector<float> area(n, 0.f), thick(n);
  for (size_t t = 0; t < model.num_tris(); ++t) {
    const Int3& tri = model.tris[t];
    for (int k = 0; k < 3; ++k) area[size_t(tri[k])] += model.rest_tri_area[t] / 3.f;
  }
  for (size_t i = 0; i < n; ++i) thick[i] = model.material_of_vertex(uint32_t(i)).thickness;
  off_.upload(ctx, springs_.offsets);
  nbr_.upload(ctx, springs_.nbr);
  rest_.upload(ctx, springs_.rest);
  kind_.upload(ctx, springs_.kind);
  area_.upload(ctx, area);
  thick_.upload(ctx, thick);
  max_thickness_ = thick.empty() ? 0.f : *std::max_element(thick.begin(), thick.end());
  const std::vector<float> longest = longest_rest_edges(model);
  longest_.upload(ctx, longest);
  max_clearance_ = largest_edge_clearance(model, longest);
  rest_x_.upload(ctx, model.rest);
  piece_.upload(ctx, model.vert_piece);
  xa_.resize(ctx, n);
  xb_.resize(ctx, n);
  v1_.resize(ctx, n);
  hoops_.upload(ctx, find_hoops(model.topo, model.rest));
}

// The strain limit's rows (strain_rows.h), rebuilt when strain_reach changes.
void VerletSolver::upload_strain_rows(const ClothModel& model) {
  const StrainRows r = build_strain_rows(springs_, model.rest, rest_length_, params_.strain_reach);
  soff_.upload(ctx_, r.offsets);
  snbr_.upload(ctx_, r.nbr);
  srest_.upload(ctx_, r.rest);
  slong_.upload(ctx_, r.long_begin);
  long_constraints_ = r.num_long / 2;
  strain_rows_reach_ = params_.strain_reach;
}

std::string VerletSolver::set_params(const ParamTable& table) {
  std::string err = params_.from_table(table);
  if (!err.empty()) return err;
  radius_ = 0.5f * rest_length_ * params_.radius_scale;
  coeff_h_ = -1;  // stiffness and damping depend on the params
  return "";
}

// Spring stiffness/damping and per-vertex damping for sub-step h (host, on change).
void VerletSolver::update_coefficients(const ClothModel& model, float h) {
  if (h == coeff_h_) return;
  std::vector<float> k, c;
  softened_ = spring_coefficients(model, springs_, params_, h, &k, &c);
  k_.upload(ctx_, k);
  c_.upload(ctx_, c);
  std::vector<float> damp(model.num_vertices());
  for (size_t i = 0; i < damp.size(); ++i) damp[i] = model.material_of_vertex(uint32_t(i)).damping + params_.damping;
  damp_.upload(ctx_, damp);
  coeff_h_ = h;
}

// Long-range attachments follow the pins: rebuilt (host Dijkstra) when the set of
// pinned vertices changes.
void VerletSolver::update_attachments(const SimState& state) {
  std::vector<float> w = state.inv_mass.to_host();
  std::vector<uint8_t> pinned(w.size());
  for (size_t i = 0; i < w.size(); ++i) pinned[i] = w[i] <= 0.f ? 1 : 0;
  if (pinned == pinned_ && anchor_.size() == w.size()) return;
  pinned_ = pinned;
  any_pin_ = std::find(pinned.begin(), pinned.end(), uint8_t(1)) != pinned.end();
  std::vector<int32_t> anchor;
  std::vector<float> geodesic;
  nearest_pins(springs_, pinned, &anchor, &geodesic);
  anchor_.upload(ctx_, anchor);
  geodesic_.upload(ctx_, geodesic);
}

verlet::ModelView VerletSolver::model_view() const {
  verlet::ModelView m;
  m.off = off_.data();
  m.nbr = nbr_.data();
  m.rest = rest_.data();
  m.kind = kind_.data();
  m.k = k_.data();
  m.c = c_.data();
  m.area = area_.data();
  m.damp = damp_.data();
  m.thickness = thick_.data();
  m.longest_edge = params_.edge_clearance ? longest_.data() : nullptr;
  m.soff = soff_.data();
  m.snbr = snbr_.data();
  m.srest = srest_.data();
  m.slong = slong_.data();
  m.n = int(rest_x_.size());
  return m;
}

verlet::ContactFilter VerletSolver::contact_filter() const {
  verlet::ContactFilter f;
  f.off = off_.data();
  f.nbr = nbr_.data();
  f.rest_x = rest_x_.data();
  f.piece = piece_.data();
  f.diameter = 2.f * radius_;
  return f;
}

verlet::ContactLists VerletSolver::contact_lists() {
  verlet::ContactLists c;
  c.K = params_.max_contacts;
  c.n = int(rest_x_.size());
  if (ccount_.size() != size_t(c.n) || cids_.size() != size_t(c.n) * size_t(c.K)) {
    ccount_.resize(ctx_, size_t(c.n));
    cids_.resize(ctx_, size_t(c.n) * size_t(c.K));
  }
  c.count = ccount_.data();
  c.ids = cids_.data();
  return c;
}

void VerletSolver::step(const StepInputs& in, SimState& state) {
  const int substeps = params_.substeps > 0 ? params_.substeps : std::max(1, in.substeps);
  const float h = in.dt / float(substeps);
  update_coefficients(in.model, h);
  if (params_.strain_reach != strain_rows_reach_) upload_strain_rows(in.model);  // first step, or reach changed
  if (params_.long_range) update_attachments(state);
  if (in.obstacles.has_meshes()) {
    ScopedStage s(in.timer, "verlet obstacles bvh");
    proximity_.update(ctx_, in.obstacles, in.dt);
  }
  contacts_valid_ = false;
  if (sweep_stops_.size() != size_t(in.model.num_vertices())) sweep_stops_.resize(ctx_, in.model.num_vertices());
  sweep_stops_.fill_zero();
  for (int s = 0; s < substeps; ++s) substep(in, state, h, SubstepSpan{s, substeps});
  report_stats(in);
}

void VerletSolver::substep(const StepInputs& in, SimState& state, float h, SubstepSpan span) {
  const float t = float(in.time) + float(span.index) * h;
  const verlet::ModelView m = model_view();
  const float* w = state.inv_mass.data();
  {
    ScopedStage st(in.timer, "verlet integrate");
    verlet::ForceInputs f{in.env.gravity, in.env.wind, in.env.air_drag, t, h};
    verlet::predict(ctx_, m, f, state.x.data(), state.v.data(), w, xa_.data(), v1_.data());
    if (moved_a_.size() != size_t(m.n)) moved_a_.resize(ctx_, size_t(m.n)), moved_b_.resize(ctx_, size_t(m.n));
    // the grab first, its vertices then held like pins: the strain passes pull
    // the cloth after it instead of leaving it behind
    const bool hold = params_.grab_holds && in.grab.active;
    const float* ws = w;  // the strain passes' inverse masses
    if (hold) {
      verlet::apply_grab(ctx_, in.grab, xa_.data(), w);
      if (held_w_.size() != size_t(m.n)) held_w_.resize(ctx_, size_t(m.n));
      verlet::hold_grabbed(ctx_, in.grab, w, m.n, held_w_.data());
      ws = held_w_.data();
    }
    // mesh obstacles in the passes: each vertex against the plane of its
    // closest triangle near the prediction (queried again after the passes)
    const bool mesh_in_passes = params_.obstacles_in_passes && in.obstacles.has_meshes();
    if (mesh_in_passes) query_meshes(state.x.data());
    for (int it = 0; it < params_.strain_iterations; ++it) {
      // the long constraints in the first half of the passes, the springs alone
      // after them: a skirt settling on the hips, whose weight they carried down
      // onto the waistband in every pass, had its waistband stretched 2.7-fold
      // over the hips for a few frames (RESULTS.md, forty-second session)
      const bool with_long = it < (params_.strain_iterations + 1) / 2;
      verlet::strain_limit(ctx_, m, params_.max_stretch, ws, xa_.data(), xb_.data(), it ? moved_a_.data() : nullptr,
                           moved_b_.data(), with_long, params_.strain_split == StrainSplit::Equal);
      xa_.swap(xb_);
      moved_a_.swap(moved_b_);
      if (params_.hoops) limit_hoops(ctx_, hoops_.view(), params_.max_stretch, ws, xa_.data(), moved_a_.data());
      // the pass's result pushed out of the shapes (and marked as moved), so
      // that the next pass limits the strain of where the cloth can be; after
      // the first pass only the vertices it moved (the rest were pushed out
      // after the pass before)
      if (params_.obstacles_in_passes && it + 1 < params_.strain_iterations) {
        const ObstacleSet& o = in.obstacles;
        verlet::collide_shapes(ctx_, m, o.d_shapes.data(), o.d_shapes_prev.data(), o.num_shapes(), in.dt, h,
                               state.x.data(), state.inv_mass.data(), xa_.data(), moved_a_.data(), it > 0);
        if (mesh_in_passes)
          verlet::collide_meshes(ctx_, m, mesh_contacts_.data(), h, state.x.data(), state.inv_mass.data(), xa_.data(),
                                 moved_a_.data(), it > 0);
      }
    }
    if (params_.long_range && any_pin_)
      verlet::long_range_attach(ctx_, m.n, anchor_.data(), geodesic_.data(), params_.max_stretch, ws, xa_.data());
    verlet::apply_grab(ctx_, in.grab, xa_.data(), w);  // with hold: the free light corners moved, onto the target again
  }
  collide_obstacles(in, state, h, span);
  if (in.self_collision) self_collide(in, state, h);
  ScopedStage st(in.timer, "verlet finish");
  verlet::ContactLists cl = contacts_valid_ ? contact_lists() : verlet::ContactLists{};
  cl.n = m.n;
  verlet::finish_velocity(ctx_, cl, 2.f * radius_, params_.contact_damping, h, w, state.x.data(), xa_.data(),
                          v1_.data(), state.v.data());
  state.x.copy_from(xa_);
}

void VerletSolver::collide_obstacles(const StepInputs& in, SimState& state, float h, SubstepSpan span) {
  ScopedStage st(in.timer, "verlet obstacles");
  const verlet::ModelView m = model_view();
  const ObstacleSet& o = in.obstacles;
  verlet::collide_shapes(ctx_, m, o.d_shapes.data(), o.d_shapes_prev.data(), o.num_shapes(), in.dt, h,
                         state.x.data(), state.inv_mass.data(), xa_.data());
  if (!o.has_meshes()) return;
  if (params_.mesh_ccd) sweep_meshes(state, span);
  query_meshes(state.x.data());
  verlet::collide_meshes(ctx_, m, mesh_contacts_.data(), h, state.x.data(), state.inv_mass.data(), xa_.data());
}

// Vertices whose path from x to xa crossed a mesh obstacle beyond the closest-
// point query's reach are stopped where they first touched it.
void VerletSolver::sweep_meshes(const SimState& state, SubstepSpan span) {
  const int n = int(rest_x_.size());
  if (sweep_hits_.size() != size_t(n)) sweep_hits_.resize(ctx_, size_t(n));
  const FrameSpan f = span.frame();
  sweep_points(ctx_, proximity_.mesh_view(), state.x.data(), xa_.data(), n, f.start, f.end, mesh_reach(), 1.f,
               sweep_hits_.data());
  verlet::stop_at_hits(ctx_, model_view(), sweep_hits_.data(), state.inv_mass.data(), xa_.data(), sweep_stops_.data());
}

// Twice the thickness, or the sphere radius; or the largest clearance a vertex
// can ask for (edge_clearance.h). Twice that cost the kick skirt 10 ms a frame
// of 42 in its queries; beyond the reach a vertex at a sharp bend is held at
// the reach instead (RESULTS.md, forty-fifth session).
float VerletSolver::mesh_reach() const {
  return std::max({2.f * max_thickness_, radius_, params_.edge_clearance ? max_clearance_ : 0.f});
}

// Each vertex's closest mesh-obstacle triangle near xa (mesh_contacts_) at the
// frame's end pose, as for the analytic shapes, its normal to the side the
// vertex was on at the start of the sub-step (x0). At each sub-step's own pose
// (as pbd asks) the body's features cut further into the coarse hem of
// ../shared's dress, which crossed the mannequin in 79-93 of 150 frames against
// 31-76 over four settings (RESULTS.md, forty-fourth session); the push per sub-step stays within the
// reach, so a fast mesh does not throw the cloth as it did pbd's.
void VerletSolver::query_meshes(const Vec3f* x0) {
  const int n = int(rest_x_.size());
  if (mesh_contacts_.size() != size_t(n)) mesh_contacts_.resize(ctx_, size_t(n));
  proximity_.query(ctx_, xa_.data(), n, mesh_reach(), mesh_contacts_.data(), x0);
}

void VerletSolver::self_collide(const StepInputs& in, SimState& state, float h) {
  const int n = int(rest_x_.size());
  const float D = 2.f * radius_;
  {
    ScopedStage st(in.timer, "verlet sphere grid");
    find_contacts(xa_.data(), n, D * (1.f + kListMargin));
  }
  ScopedStage st(in.timer, "verlet sphere response");
  const verlet::ContactLists cl = contact_lists();
  for (int it = 0; it < params_.collision_iterations; ++it) {
    verlet::sphere_response(ctx_, cl, rest_x_.data(), D, state.inv_mass.data(), state.x.data(), xa_.data(),
                            xb_.data());
    xa_.swap(xb_);
  }
  (void)h;
  // obstacles are hard: the response must not push spheres into them (meshes
  // against the planes found before it: without, ../shared's dress under Verlet
  // crossed the body in 400-600 pairs a frame from frame 32 on; RESULTS.md,
  // forty-fourth session)
  if (params_.collision_iterations > 0) {
    const ObstacleSet& o = in.obstacles;
    verlet::collide_shapes(ctx_, model_view(), o.d_shapes.data(), o.d_shapes_prev.data(), o.num_shapes(), in.dt, h,
                           state.x.data(), state.inv_mass.data(), xa_.data());
    if (o.has_meshes())
      verlet::collide_meshes(ctx_, model_view(), mesh_contacts_.data(), h, state.x.data(), state.inv_mass.data(),
                             xa_.data());
  }
}

void VerletSolver::find_contacts(const Vec3f* x, int n, float radius) {
  const verlet::ContactLists cl = contact_lists();
  const verlet::ContactFilter f = contact_filter();
  const float D = 2.f * radius_;
  dense_failed_ = false;
  if (params_.store == SphereStore::DenseGrid) {
    if (dense_.build(ctx_, x, n, D / std::sqrt(3.f), kMaxDenseCells)) {
      verlet::find_contacts_dense(ctx_, dense_.view(), x, n, radius, f, cl);
      contacts_valid_ = true;
      return;
    }
    dense_failed_ = true;  // box too large: fall back to the hash grid
  }
  if (params_.store == SphereStore::AllPairs) {
    verlet::find_contacts_all_pairs(ctx_, x, n, radius, f, cl);
  } else {
    hash_.build(ctx_, x, n, params_.thesis_cells ? D / std::sqrt(3.f) : radius, kHashTableLoad);
    verlet::find_contacts_hash(ctx_, hash_.view(), x, n, radius, f, cl);
  }
  contacts_valid_ = true;
}

void VerletSolver::report_stats(const StepInputs& in) {
  FrameStats& s = in.stats;
  s.set("springs softened", double(softened_) / 2.0);
  s.set("long strain constraints", double(long_constraints_));
  s.set("hoops", params_.hoops ? double(hoops_.size()) : 0.0);
  if (in.obstacles.has_meshes() && params_.mesh_ccd)
    s.set("mesh ccd stops", reduce_sum(ctx_, sweep_stops_.data(), sweep_stops_.size()));
  if (!in.self_collision || !contacts_valid_) return;
  const verlet::ContactLists cl = contact_lists();
  if (overlap_.size() != size_t(cl.n)) overlap_.resize(ctx_, size_t(cl.n)), touching_.resize(ctx_, size_t(cl.n));
  verlet::contact_overlap(ctx_, cl, 2.f * radius_, xa_.data(), overlap_.data(), touching_.data());
  // reduced on the device: a download of the per-sphere overlaps cost ~5 ms a frame at 1M vertices
  s.set("spheres in contact", reduce_sum(ctx_, touching_.data(), size_t(cl.n)));
  s.set("deepest overlap (m)", cl.n ? double(std::max(0.f, reduce_max(ctx_, overlap_.data(), size_t(cl.n)))) : 0.0);
  s.set("sphere radius (m)", double(radius_));
  const bool dense = params_.store == SphereStore::DenseGrid && !dense_failed_;
  const bool hash = params_.store == SphereStore::HashGrid || dense_failed_;
  size_t bytes = dense ? dense_.device_bytes() : (hash ? hash_.device_bytes() : 0);
  size_t occupied = dense ? size_t(cl.n - dense_.lost()) : (hash ? hash_.occupied_buckets(ctx_) : 0);
  s.set("occupied cells", double(occupied));
  s.set("grid bytes", double(bytes));
  s.set("grid bytes per vertex", cl.n ? double(bytes) / double(cl.n) : 0.0);
  if (dense) s.set("centres lost", double(dense_.lost()));
  if (dense_failed_) s.set("dense grid too large", 1.0);
}

void VerletSolver::debug_draw(DebugDraw& out) const {
  if (!contacts_valid_ || overlap_.empty()) return;
  std::vector<float> ov = overlap_.to_host();
  std::vector<Vec3f> x = xa_.to_host();
  for (size_t i = 0; i < ov.size() && i < x.size(); ++i)
    if (ov[i] > 0.f) {
      out.points.push_back(x[i]);
      out.point_radii.push_back(radius_);
    }
}

size_t VerletSolver::device_bytes() const {
  return off_.bytes() + nbr_.bytes() + piece_.bytes() + rest_.bytes() + k_.bytes() + c_.bytes() + area_.bytes() +
         damp_.bytes() + thick_.bytes() + longest_.bytes() + soff_.bytes() + snbr_.bytes() + srest_.bytes() + anchor_.bytes() +
         geodesic_.bytes() + kind_.bytes() + rest_x_.bytes() + xa_.bytes() + xb_.bytes() + v1_.bytes() + moved_a_.bytes() +
         moved_b_.bytes() + ccount_.bytes() + cids_.bytes() + overlap_.bytes() + touching_.bytes() + mesh_contacts_.bytes() + sweep_hits_.bytes() + sweep_stops_.bytes() + hash_.device_bytes() +
         dense_.device_bytes() + proximity_.device_bytes() + slong_.bytes() + held_w_.bytes() +
         hoops_.bytes();
}

std::unique_ptr<Solver> make_verlet_solver(const Context& ctx, const ClothModel& model) {
  return std::make_unique<VerletSolver>(ctx, model);
}

}  // namespace cb
