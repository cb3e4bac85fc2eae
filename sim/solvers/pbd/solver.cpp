#include "sim/solvers/pbd/solver.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/model/edge_clearance.h"
#include "sim/model/takeover_ease.h"

namespace cb {
namespace {

// rotation part of a lerped pose, re-orthonormalised (Gram-Schmidt on the columns)
Mat3f orthonormalize(const Mat3f& m) {
  Vec3f c0{m.m[0][0], m.m[1][0], m.m[2][0]}, c1{m.m[0][1], m.m[1][1], m.m[2][1]};
  c0 = normalize(c0);
  c1 = normalize(c1 - c0 * dot(c0, c1));
  Vec3f c2 = cross(c0, c1);
  Mat3f r;
  for (int i = 0; i < 3; ++i) {
    r.m[i][0] = c0[i];
    r.m[i][1] = c1[i];
    r.m[i][2] = c2[i];
  }
  return r;
}

// the shape at fraction s in [0, 1] of the frame (poses interpolated)
Shape shape_between(const Shape& a, const Shape& b, float s) {
  Shape r = b;
  r.pose.t = lerp(a.pose.t, b.pose.t, s);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.pose.R.m[i][j] = a.pose.R.m[i][j] + (b.pose.R.m[i][j] - a.pose.R.m[i][j]) * s;
  r.pose.R = orthonormalize(r.pose.R);
  return r;
}

// m/s: the takeover settle stops once a pass moves no vertex by more than this
// times the substep. Gauss-Seidel passes converge slowly, and what they leave
// turns into motion over the next frames: at 0.1 a sheet switched mid-swing
// still rose 11 cm above its pins, at 0.02 most switches ran to the pass cap
// (RESULTS.md, twenty-fourth session)
constexpr float kSettleSpeed = 0.05f;

// vertex-passes: the settle's work at most, the shipped hanging sheet's full
// settle (2,000 passes of 1,600 vertices, 0.85 s on the 2-core CPU). A larger mesh
// gets proportionally fewer passes (a 25,600-vertex sheet took 4.6 s for its 921)
// and the takeover ease (takeover_ease.h) releases what they leave without a jump
constexpr double kSettleWork = 3.2e6;

}  // namespace

PbdSolver::PbdSolver(const Context& ctx, const ClothModel& model) : ctx_(ctx) {
  if (!model.pieces.empty()) params_ = PbdParams::defaults_from_material(model.materials[model.pieces[0].material]);
  pbd::HostConstraintSet h = pbd::build_constraint_set(model);
  cs_.upload(ctx, h);
  hoops_.upload(ctx, find_hoops(model.topo, model.rest));
  nverts_ = model.num_vertices();
  for (float t : h.vert_thickness) max_thickness_ = std::max(max_thickness_, t);
  for (float l : h.edge_rest) mean_edge_ += l / float(h.edge_rest.size());
  const std::vector<float> longest = longest_rest_edges(model);
  longest_.upload(ctx, longest);
  max_clearance_ = largest_edge_clearance(model, longest);
  x0_.resize(ctx, nverts_);
  rest_.upload(ctx, model.rest);
  mass_.upload(ctx, model.mass);
  for (float m : model.mass) cloth_mass_ += double(m);
  contact_.resize(ctx, nverts_);
  edge_lambda_.resize(ctx, h.edges.size());
  bend_lambda_.resize(ctx, h.bends.size());
}

std::string PbdSolver::set_params(const ParamTable& table) { return set_typed_params(PbdParams::from_table(table)); }

std::string PbdSolver::set_typed_params(const PbdParams& p) {
  std::string err = p.validate();
  if (err.empty()) params_ = p;
  return err;
}

size_t PbdSolver::device_bytes() const {
  return cs_.bytes() + x0_.bytes() + dx_.bytes() + edge_corr_.bytes() + bend_corr_.bytes() + bend_lambda_.bytes() +
         edge_lambda_.bytes() + scratch_.bytes() + contact_.bytes() + mesh_contacts_.bytes() + shapes_sub_.bytes() +
         proximity_.device_bytes() + hash_.device_bytes() + rest_.bytes() + mass_.bytes() + ease_.bytes() +
         hoops_.bytes() + longest_.bytes() + wp_.bytes();
}

pbd::PbdView PbdSolver::view(SimState& s) {
  pbd::PbdView v;
  v.nverts = int(nverts_);
  v.nedges = int(cs_.edges.size());
  v.nbends = int(cs_.bends.size());
  v.x = s.x.data();
  v.v = s.v.data();
  v.x0 = x0_.data();
  v.w = s.inv_mass.data();
  v.wp = v.w;
  if (params_.split == PbdSplit::Equal) {
    if (wp_.size() != nverts_) wp_.resize(ctx_, nverts_);
    pbd::equal_inverse_masses(ctx_, v.w, v.nverts, cloth_mass_ > 0 ? float(double(nverts_) / cloth_mass_) : 0.f,
                              wp_.data());
    v.wp = wp_.data();
  }
  v.area = cs_.vert_area.data();
  v.damping = cs_.vert_damping.data();
  v.thickness = cs_.vert_thickness.data();
  v.longest_edge = params_.edge_clearance ? longest_.data() : nullptr;
  v.contact = contact_.data();
  v.dx = dx_.data();
  v.edges = cs_.edges.data();
  v.edge_rest = cs_.edge_rest.data();
  v.edge_factor = cs_.edge_factor.data();
  v.edge_theta = cs_.edge_theta.data();
  v.edge_shear = cs_.edge_shear.data();
  v.edge_lambda = edge_lambda_.data();
  v.edge_corr = edge_corr_.data();
  v.bends = cs_.bends.data();
  v.bend_coef = cs_.bend_coef.data();
  v.bend_factor = cs_.bend_factor.data();
  v.bend_rest_norm = cs_.bend_rest_norm.data();
  v.bend_theta = cs_.bend_theta.data();
  v.bend_lambda = bend_lambda_.data();
  v.bend_corr = bend_corr_.data();
  v.vert_edge_off = cs_.vert_edge_off.data();
  v.vert_edge = cs_.vert_edge.data();
  v.vert_bend_off = cs_.vert_bend_off.data();
  v.vert_bend = cs_.vert_bend.data();
  return v;
}

void PbdSolver::step(const StepInputs& in, SimState& state) {
  if (state.size() != nverts_) throw Error("pbd: state has " + std::to_string(state.size()) + " vertices, model " + std::to_string(nverts_));
  if (params_.mode == PbdMode::Jacobi && edge_corr_.size() != cs_.edges.size()) {
    edge_corr_.resize(ctx_, cs_.edges.size());
    bend_corr_.resize(ctx_, cs_.bends.size());
  }
  const bool meshes = in.obstacles.has_meshes();
  if (meshes) {
    ScopedStage s(in.timer, "pbd proximity");
    proximity_.update(ctx_, in.obstacles, in.dt);
    if (mesh_contacts_.size() != nverts_) mesh_contacts_.resize(ctx_, nverts_);
  }
  const int n = params_.substeps > 0 ? params_.substeps : std::max(1, in.substeps);
  const float h = in.dt / float(n);
  pbd::PbdView v = view(state);
  last_residual_ = -1;
  if (!settled_) {
    ScopedStage s(in.timer, "pbd settle");
    in.stats.set("pbd settle passes", settle(in, v, h));
    settled_ = true;
    if (in.time > 0) ease_.begin(params_.ease_frames);
  }
  for (int k = 0; k < n; ++k) {
    const auto one_substep = [&] { substep(in, v, k, n, h); };
    if (!ease_.active())
      one_substep();
    else if (ease_.run(ctx_, mass_.data(), cloth_mass_, v.v, v.nverts, h, in.env.gravity, one_substep))
      in.stats.set("pbd eased substeps", in.stats.get("pbd eased substeps", 0) + 1);
  }
  ease_.end_frame();
  in.stats.set("pbd substeps", n);
  in.stats.set("pbd iterations", params_.iterations);
  in.stats.set("pbd colours", num_edge_colors() + (params_.bending ? num_bend_colors() : 0));
  if (last_residual_ >= 0) in.stats.set("pbd residual", last_residual_);
}

void PbdSolver::upload_substep_shapes(const ObstacleSet& o, float s) {
  shapes_host_.resize(o.shapes.size());
  for (size_t i = 0; i < o.shapes.size(); ++i) shapes_host_[i] = shape_between(o.shapes_prev[i], o.shapes[i], s);
  shapes_sub_.upload(ctx_, shapes_host_);
}

void PbdSolver::substep(const StepInputs& in, pbd::PbdView& v, int k, int n, float h) {
  {
    ScopedStage s(in.timer, "pbd predict");
    pbd::ForceArgs f{in.env.gravity, in.env.wind, in.env.air_drag, float(in.time + double(k) * h), h};
    pbd::predict(ctx_, v, f);
    edge_lambda_.fill_zero();
    bend_lambda_.fill_zero();
    if (in.obstacles.num_shapes() > 0) upload_substep_shapes(in.obstacles, float(k + 1) / float(n));
    // mesh contacts at the obstacles' pose at the substep's end, each oriented to
    // the side its vertex was on at the substep's start (x0): a vertex the
    // obstacle overtook is pushed back out the way it came, not on through
    // (RESULTS.md, twenty-sixth session). At the frame's end pose in every
    // substep, a cloth touched by a paddle moving 0.1 m a frame was pushed that
    // far within one 0.8 ms substep and thrown at ~100 m/s (forty-fourth).
    if (in.obstacles.has_meshes()) {
      const FrameSpan span{float(k) / float(n), float(k + 1) / float(n)};
      proximity_.query(ctx_, v.x, v.nverts, mesh_keep() + mean_edge_ + proximity_.max_displacement() / float(n),
                       mesh_contacts_.data(), v.x0, span);
    }
  }
  const pbd::Compliance c = compliance(h);
  {
    ScopedStage s(in.timer, "pbd project");
    for (int it = 0; it < params_.iterations; ++it) project(in, v, c);
  }
  if (params_.self_collision && in.self_collision) {
    ScopedStage s(in.timer, "pbd self-collision");
    self_collision(v);
  }
  ScopedStage s(in.timer, "pbd velocity");
  if (params_.measure_residual && k == n - 1) last_residual_ = pbd::residual(ctx_, v, c, params_.bending, scratch_);
  pbd::friction_and_velocity(ctx_, v, h);
}

// XPBD's compliances over a substep h: alpha~ = alpha / h^2
pbd::Compliance PbdSolver::compliance(float h) const {
  const float inv_h2 = 1.f / (h * h);
  return pbd::Compliance{params_.stretch_compliance * inv_h2, params_.shear_compliance * inv_h2,
                         params_.bend_compliance * inv_h2, params_.mode == PbdMode::GaussSeidel ? params_.sor : 1.f};
}

// The takeover settle (pre-stabilisation). A solver switched in mid-motion
// (World::set_solver) gets a state shaped by another model: the Verlet solver's
// softened springs leave the shipped hanging sheet with half its edges stretched
// beyond 10 % and a tenth compressed by more than 26 %. Under this solver's
// stiffness that is tens of joules; XPBD's velocity update v = (x - x0) / h
// turns the projections' correction into speed, and the sheet was thrown 0.3 m
// above its pins within ten frames (RESULTS.md, twenty-fourth session). So the
// first step projects first: passes of one substep's constraint iterations,
// obstacles and grab included, without gravity and with x0 = x at each pass
// start, so positions move and velocities stay. A state that already meets the
// constraints (a scene's rest start, a hand-over from I-Cloth) stops after one
// pass that moves next to nothing. At most settle_passes passes, and at most
// kSettleWork vertex-passes. Returns the passes run.
int PbdSolver::settle(const StepInputs& in, const pbd::PbdView& v, float h) {
  const pbd::Compliance c = compliance(h);
  const pbd::ForceArgs still{Vec3f{0, 0, 0}, in.env.wind, 0.f, float(in.time), 0.f};  // h = 0: x0 = x, v kept
  if (in.obstacles.num_shapes() > 0) upload_substep_shapes(in.obstacles, 0.f);
  const int cap = std::min(params_.settle_passes, std::max(1, int(kSettleWork / double(v.nverts))));
  for (int pass = 0; pass < cap; ++pass) {
    pbd::predict(ctx_, v, still);
    edge_lambda_.fill_zero();
    bend_lambda_.fill_zero();
    if (in.obstacles.has_meshes())
      proximity_.query(ctx_, v.x, v.nverts, mesh_keep() + mean_edge_, mesh_contacts_.data());
    for (int it = 0; it < params_.iterations; ++it) project(in, v, c);
    if (params_.self_collision && in.self_collision) self_collision(v);
    if (pbd::max_move(ctx_, v, scratch_) <= kSettleSpeed * h) return pass + 1;
  }
  return cap;
}

// m: the largest distance a vertex is kept from a mesh obstacle
float PbdSolver::mesh_keep() const { return params_.edge_clearance ? max_clearance_ : max_thickness_; }

float PbdSolver::self_radius() const {
  return params_.self_radius > 0.f ? params_.self_radius : std::max(0.5f * max_thickness_, 0.3f * mean_edge_);
}

void PbdSolver::self_collision(const pbd::PbdView& v) {
  if (dx_.size() != nverts_) dx_.resize(ctx_, nverts_);
  pbd::PbdView w = v;
  w.dx = dx_.data();
  const float r = self_radius();
  hash_.build(ctx_, v.x, v.nverts, 2.f * r);
  pbd::self_collide(ctx_, w, hash_.view(), rest_.data(), r);
}

void PbdSolver::project(const StepInputs& in, const pbd::PbdView& v, pbd::Compliance c) {
  if (params_.mode == PbdMode::GaussSeidel) {
    const auto& ec = cs_.edge_color_start;
    for (size_t col = 0; col + 1 < ec.size(); ++col)
      pbd::stretch_color(ctx_, v, int(ec[col]), int(ec[col + 1] - ec[col]), c);
    const auto& bc = cs_.bend_color_start;
    if (params_.bending)
      for (size_t col = 0; col + 1 < bc.size(); ++col)
        pbd::bend_color(ctx_, v, int(bc[col]), int(bc[col + 1] - bc[col]), c);
  } else {
    pbd::stretch_jacobi(ctx_, v, c, params_.jacobi_omega);
    if (params_.bending) pbd::bend_jacobi(ctx_, v, c, params_.jacobi_omega);
  }
  if (params_.hoop_stretch >= 0.f) limit_hoops(ctx_, hoops_.view(), params_.hoop_stretch, v.wp, v.x, nullptr);
  pbd::grab(ctx_, v, in.grab);
  const ObstacleSet& o = in.obstacles;
  pbd::collide_shapes(ctx_, v, shapes_sub_.data(), o.d_shapes.data(), o.d_shapes_prev.data(), o.num_shapes(), in.dt);
  if (o.has_meshes()) pbd::collide_mesh(ctx_, v, mesh_contacts_.data());
}

std::unique_ptr<Solver> make_pbd_solver(const Context& ctx, const ClothModel& model) {
  return std::make_unique<PbdSolver>(ctx, model);
}

}  // namespace cb
