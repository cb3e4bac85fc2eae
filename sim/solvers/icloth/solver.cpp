// I-Cloth solver: one frame = substeps of (forces -> implicit solve -> obstacle
// filter -> penetration handling -> commit). See solver.h for the method.
#include "sim/solvers/icloth/solver.h"

#include <algorithm>
#include <cmath>

#include "sim/collision/penetration.h"
#include "sim/model/edge_strain.h"
#include "sim/model/tri_mesh.h"
#include "sim/solvers/icloth/solver_impl.h"
#include "sim/solvers/icloth/step_kernels.h"

namespace cb {
namespace {
/// Repulsion passes launched between two reads of their progress on the GPU.
constexpr int kRepulsionBatch = 8;
/// A vertex within this many thicknesses of an obstacle at the start of a step
/// (and not moving away) rests on it (resting_contacts.h).
constexpr float kRestingReach = 1.5f;
// Repeated solves per step with the contact springs: each takes out the
// cloth-cloth springs that pulled in the last solve and lags their Coulomb
// friction from it (ClothRepulsion::release_pulling_springs, lag_friction), and
// lets resting obstacle contacts that pull or slip go (update_resting_friction).
// Three took the sheet-on-sheet slide within 3 % of Coulomb's. The resting
// contacts take part in this many rounds; with cloth-cloth springs the rounds
// go on to IClothParams::spring_rounds. The re-solves' caps: in step_once.
constexpr int kContactRounds = 3;
// A piece whose proximity distance D = repulsion_scale x thickness exceeds this
// fraction of its short edges (short_edge) takes the repulsion's rest limit
// (RepulsionSettings::rest_limit) whatever the parameter says: with D near its
// edges, each vertex's own ring lies within D at rest and the repulsion pushes
// it off its neighbours every step. kick_skirt.json's skirt (4 mm on 2.6 mm
// edges, D / edge = 1.9) switched to I-Cloth: largest strain 2.11 after 30
// frames without the limit, 0.065 with it (and 2.6 times faster); verlet_fold
// with repulsion_scale 10 (D = 4 cm on 2 cm edges): 1.55. At the default scale
// (1.25) this is a thickness above half the short edges. The shipped I-Cloth
// scenes lie at D / edge = 0.10-0.48 and keep the full D (the limit as a
// default made the dress worse, RESULTS.md, twenty-sixth session).
constexpr float kReachOverEdge = 0.625f;
// m/s: a resting contact whose spring pulls, or whose static friction is
// exceeded, by less than what changes its vertex's velocity by this much (alone)
// waits for the next step instead of a re-solve (update_resting_friction). At
// the mass instead of the vertex's diagonal, noise in the springs' impulses
// (k = 100 times the diagonal) made the sheet on the ground slip and re-solve
// every step (PCG 223 -> 467 iterations a frame).
constexpr float kSlipTolerance = 1e-2f;

void add_stat(FrameStats& st, const char* name, double v) { st.set(name, st.get(name) + v); }
}  // namespace

std::unique_ptr<Solver> make_icloth_solver(const Context& ctx, const ClothModel& model) {
  return std::make_unique<icloth::IClothSolver>(ctx, model);
}

namespace icloth {

IClothSolver::IClothSolver(const Context& ctx, const ClothModel& model) : ctx_(ctx), impl_(new Impl) {
  Impl& d = *impl_;
  d.model = &model;
  const size_t n = model.num_vertices(), nt = model.num_tris(), nb = model.topo.bends.size();
  d.tris.upload(ctx, model.tris);
  d.bends.upload(ctx, model.topo.bends);
  d.pattern.upload(ctx, build_block_pattern(n, model.tris, model.topo.bends));
  std::vector<float> area(n, 0.f), alpha(n, 0.f);
  for (size_t t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) area[size_t(model.tris[t][k])] += model.rest_tri_area[t] / 3.f;
  for (size_t v = 0; v < n; ++v) alpha[v] = model.material_of_vertex(uint32_t(v)).damping;
  d.mass.upload(ctx, model.mass);
  d.area.upload(ctx, area);
  d.alpha.upload(ctx, alpha);
  d.tri_grad.resize(ctx, 3 * nt);
  d.tri_hw.resize(ctx, nt);
  d.bend_grad.resize(ctx, 4 * nb);
  d.bend_gt.resize(ctx, 4 * nb);
  d.bend_hs.resize(ctx, nb);
  d.K.resize(ctx, d.pattern.stored_blocks());
  for (auto* b : {&d.f, &d.rhs, &d.v_new, &d.x_new, &d.warm_dv}) b->resize(ctx, n);
  d.speed.resize(ctx, n);
  d.contacts.resize(ctx, n);
  d.resting.resize(ctx, n);
  d.resting_k.resize(ctx, n);
  d.stuck.upload(ctx, std::vector<uint8_t>(n, 0));
  d.carried.upload(ctx, std::vector<Vec3f>(n, Vec3f{0, 0, 0}));
  d.round_counts.resize(ctx, 3);
  d.h_mass = model.mass;
  d.cloth_mass = 0;
  for (float m : model.mass) d.cloth_mass += double(m);
  std::vector<float> fr(n);
  for (size_t v = 0; v < n; ++v) fr[v] = model.material_of_vertex(uint32_t(v)).friction;
  d.friction.upload(ctx, fr);
  d.repulsion.set_cloth(ctx, n, model.tris, model.topo);
  d.repulsion.set_rest(ctx, model.rest, model.vert_piece);
  for (const ClothPiece& p : model.pieces) {
    const auto first = model.tris.begin() + std::ptrdiff_t(p.first_tri);
    d.piece_short_edge.push_back(short_edge(model.rest, std::vector<Int3>(first, first + std::ptrdiff_t(p.num_tris))));
  }
  d.collisions.set_cloth(n, model.tris, model.topo);
  std::vector<uint32_t> piece(nt);
  for (size_t t = 0; t < nt; ++t) piece[t] = model.vert_piece[size_t(model.tris[t].a)];
  d.tri_piece.upload(ctx, piece);
  for (const ClothPiece& p : model.pieces) d.coarse_pieces.push_back({int(p.first_vertex), int(p.num_vertices)});
  d.edges.upload(ctx, model.topo.edges);
  d.edge_rest.upload(ctx, model.rest_edge_length);
  d.edge_scratch.resize(ctx, model.topo.edges.size());
  rebuild_rest();
}

IClothSolver::~IClothSolver() = default;

// rest data and thickness depend on the parameters (weft ratio, thickness)
void IClothSolver::rebuild_rest() {
  Impl& d = *impl_;
  const ClothModel& model = *d.model;
  ElementRest rest = build_element_rest(model, params_.weft_ratio);
  d.tri_rest.upload(ctx_, rest.tris);
  d.bend_rest.upload(ctx_, rest.bends);
  std::vector<float> th(model.num_vertices());
  d.max_thickness = 0;
  for (size_t v = 0; v < th.size(); ++v) {
    th[v] = params_.thickness > 0 ? params_.thickness : model.material_of_vertex(uint32_t(v)).thickness;
    d.max_thickness = std::max(d.max_thickness, th[v]);
  }
  d.thickness.upload(ctx_, th);
  d.h_thickness = th;
  update_rest_limited_pieces();
}

// the pieces whose proximity distance reaches their own edges (kReachOverEdge),
// or whose material keeps its rest gaps (Material::rest_limit: a dropped OBJ)
void IClothSolver::update_rest_limited_pieces() {
  Impl& d = *impl_;
  const ClothModel& model = *d.model;
  std::vector<uint8_t> limited(model.pieces.size(), 0);
  for (size_t p = 0; p < limited.size(); ++p) {
    const ClothPiece& pc = model.pieces[p];
    if (pc.num_vertices == 0) continue;
    const auto first = d.h_thickness.begin() + std::ptrdiff_t(pc.first_vertex);
    const float reach = params_.repulsion_scale * *std::max_element(first, first + std::ptrdiff_t(pc.num_vertices));
    limited[p] = reach > kReachOverEdge * d.piece_short_edge[p] || model.materials[pc.material].rest_limit ? 1 : 0;
  }
  d.rest_limited_pieces = size_t(std::count(limited.begin(), limited.end(), uint8_t(1)));
  d.repulsion.set_limited_pieces(ctx_, limited);
}

std::string IClothSolver::set_params(const ParamTable& table) {
  IClothParams p;
  std::string err = IClothParams::from_table(table, &p);
  if (!err.empty()) return err;
  bool rest_changed = p.weft_ratio != params_.weft_ratio || p.thickness != params_.thickness;
  const bool layout_changed = p.split_blocks != params_.split_blocks;
  const bool reach_changed = p.repulsion_scale != params_.repulsion_scale;
  params_ = p;
  if (rest_changed) rebuild_rest();
  else if (reach_changed) update_rest_limited_pieces();
  if (layout_changed) {  // K is gathered anew every step, in the new layout
    const ClothModel& m = *impl_->model;
    impl_->pattern.upload(ctx_, build_block_pattern(m.num_vertices(), m.tris, m.topo.bends), BlockLayout::Auto,
                          params_.split_blocks);
  }
  return "";
}

size_t IClothSolver::device_bytes() const {
  const Impl& d = *impl_;
  return d.tris.bytes() + d.bends.bytes() + d.tri_rest.bytes() + d.bend_rest.bytes() + d.pattern.bytes() +
         d.mass.bytes() * 4 + d.tri_grad.bytes() + d.bend_grad.bytes() * 2 + d.tri_hw.bytes() + d.bend_hs.bytes() +
         d.speed.bytes() + d.K.bytes() + d.f.bytes() * 5 + d.cg.bytes() + d.contacts.bytes() + d.resting.bytes() +
         d.resting_k.bytes() + d.stuck.bytes() + d.carried.bytes() + d.round_counts.bytes() + d.round_sum.bytes() +
         d.diag_block.bytes() +
         d.mesh_prox.device_bytes() + d.friction.bytes() + d.repulsion.device_bytes() + d.mg.device_bytes() +
         d.edges.bytes() + d.edge_rest.bytes() + d.edge_scratch.bytes() + d.newton_b0.bytes() * 5 +
         d.settle_v.bytes() + d.energy_scratch.bytes() + d.ease.bytes();
}

namespace {
// Frames from the start (the scene's, or a takeover) that may begin with the untangle
// (untangle_crossed): the sweep's swings that were cleared at all were cleared
// by their fifth.
constexpr int kUntangleFrames = 10;
// ... and only while the last try came close: what it left on the sweep's
// swings was 1-4 pairs, cleared by a later try, and on one swing 31, then 6,
// 19 and 53, cleared at its fifth frame (with a bound of 16 it went on crossed
// and reached strain 5: RESULTS.md, thirty-first session); on the 58^2 funnel
// swirled by Verlet (30,205 pairs handed over) it left ~300 each time, at 4-6
// s a try.
constexpr size_t kUntangleRetryPairs = 64;
}  // namespace

void IClothSolver::step(const StepInputs& in, SimState& state) {
  const int substeps = params_.substeps > 0 ? params_.substeps : std::max(1, in.substeps);
  const float h = in.dt / float(substeps);
  Impl& d = *impl_;
  in.stats.set("cg iterations", 0);
  in.stats.set("proximity pairs", 0);
  in.stats.set("repulsion impulses", 0);
  in.stats.set("repulsion passes", 0);
  if (in.obstacles.has_meshes()) {
    ScopedStage s(in.timer, "obstacle bvh");
    d.mesh_prox.update(ctx_, in.obstacles, in.dt);
  }
  // the state may come from another solver or a user edit: a frame starts with
  // a look for tangles unless the world's check vouches for its start; later
  // sub-steps look only while some were found
  bool start_clean = in.start_clean;
  // until a frame has started clean, each of the first kUntangleFrames frames
  // that does not is untangled first (untangle_crossed): a state handed over
  // crossed by another solver, or a scene that starts crossed
  if (!d.seen_clean_start && !start_clean && params_.untangle_iterations > 0 &&
      d.untangle_tries < kUntangleFrames && d.untangle_left <= kUntangleRetryPairs) {
    ScopedStage s(in.timer, "untangle");
    ++d.untangle_tries;
    start_clean = untangle_crossed(in, state);
  }
  d.check_tangles = !start_clean;
  d.seen_clean_start = d.seen_clean_start || start_clean;
  if (!d.settled) {  // a state from elsewhere: time 0 is the scene's own start
    d.settled = true;
    if (in.time > 0 && start_clean && params_.settle_passes > 0) {
      ScopedStage s(in.timer, "settle");
      in.stats.set("settle passes", settle(in, state, h, substeps));
    }
    if (in.time > 0) d.ease.begin(params_.ease_frames);  // also when the settle is skipped (tangled)
  }
  for (int s = 0; s < substeps; ++s) {
    const double t = in.time + double(s) * h;
    const float tau0 = float(s) / float(substeps), tau1 = float(s + 1) / float(substeps);
    const auto one_step = [&] { step_once(in, state, h, t, tau0, tau1); };
    if (!d.ease.active())
      one_step();
    else if (d.ease.run(ctx_, d.mass.data(), d.cloth_mass, state.v.data(), int(state.size()), h, in.env.gravity, one_step))
      in.stats.set("eased steps", in.stats.get("eased steps", 0) + 1);
  }
  d.ease.end_frame();
  if (params_.count_intersections) {
    ScopedStage s(in.timer, "penetration check");
    TriSet cloth{state.x.data(), d.tris.data(), int(d.tris.size()), d.tri_piece.data()};
    TriSet obst{in.obstacles.d_mesh_x.data(), in.obstacles.d_mesh_tris.data(), int(in.obstacles.mesh_tris.size()),
                nullptr};
    IntersectionCounts c = count_intersections(ctx_, cloth, obst);
    in.stats.set("intersecting pairs", double(c.total()));
  }
}

namespace {

// the analytic shapes posed at fractions tau0 / tau1 of the frame, on the backend
void upload_shapes(const Context& ctx, const ObstacleSet& o, float tau0, float tau1, DeviceBuffer<Shape>& start,
                   DeviceBuffer<Shape>& end) {
  std::vector<Shape> a(o.shapes.size()), b(o.shapes.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = interpolate_shape(o.shapes_prev[i], o.shapes[i], tau0);
    b[i] = interpolate_shape(o.shapes_prev[i], o.shapes[i], tau1);
  }
  start.upload(ctx, a);
  end.upload(ctx, b);
}

}  // namespace

// One implicit step of h seconds (Tang et al. 2018, Sec. 3-4): the proximity
// pairs, the forces and their stiffness at x, the contacts as springs in the
// system, the velocity solve, the obstacles' and the repulsion's velocity
// filters, then the CCD and the impact zones from x to x + h v.
void IClothSolver::step_once(const StepInputs& in, SimState& state, float h, double t, float tau0, float tau1) {
  Impl& d = *impl_;
  const int n = int(state.size());
  const bool use_repulsion = params_.repulsion && params_.self_collision && in.self_collision;
  SystemView A = system_view(in, state, h);  // K is filled by the forces stage
  if (use_repulsion) find_proximity(in, state);
  assemble_forces(in, state, A, h, t);
  upload_shapes(ctx_, in.obstacles, tau0, tau1, d.shape_start, d.shape_end);  // posed for this step
  const bool resting = add_contact_springs(in, state, use_repulsion, A);
  solve_velocities(in, state, A, h, resting);
  obstacle_response(in, state, A, h, resting);
  if (use_repulsion) {
    ScopedStage s(in.timer, "repulsion");
    repulsion_passes(in, state, h);
  }
  predict_positions(ctx_, state.x.data(), d.v_new.data(), state.inv_mass.data(), n, h, d.x_new.data());
  if ((params_.self_collision && in.self_collision) || in.obstacles.has_meshes()) {
    ScopedStage s(in.timer, "collisions");
    // a step whose motion the collision response changed (impacts, a tangled
    // start) does not repeat: the next step starts cold (cg_warm_start). A
    // swing of the tangled sweep handed over crossed went to strain 5 when
    // the tangled steps' capped solves started warm (RESULTS.md, thirty-second session)
    if (!resolve_collisions(in, state, tau0, tau1)) d.warm_valid = false;
  }
  commit_positions(ctx_, state.x.data(), state.v.data(), d.x_new.data(), d.v_new.data(), state.inv_mass.data(), n, h);
}

// the cloth-cloth pairs closer than their proximity distance (and the pairs
// ahead) at the step's start x
void IClothSolver::find_proximity(const StepInputs& in, const SimState& state) {
  Impl& d = *impl_;
  ScopedStage s(in.timer, "proximity");
  size_t num_prox = d.repulsion.find(ctx_, state.x.data(), d.thickness.data(), d.friction.data(), d.max_thickness,
                                     repulsion_settings());
  add_stat(in.stats, "proximity pairs", double(num_prox));
  add_stat(in.stats, "proximity candidates", double(d.repulsion.candidates()));
  if (d.rest_limited_pieces) in.stats.set("rest-limited pieces", double(d.rest_limited_pieces));
}

// the elastic forces and their stiffness K at x, the external forces at time
// t, and the right-hand side h (f + h K v) of the step's system
void IClothSolver::assemble_forces(const StepInputs& in, const SimState& state, const SystemView& A, float h,
                                   double t) {
  Impl& d = *impl_;
  const int n = int(state.size());
  const VertexData vd{d.mass.data(), d.area.data(), state.inv_mass.data()};
  ScopedStage s(in.timer, "forces");
  eval_elements(ctx_, d.el_in(), state.x.data(), d.el_out());
  gather_elastic_forces(ctx_, A.pat, d.el_out(), d.f.data());
  gather_stiffness(ctx_, A.pat, d.el_in(), d.el_out(), d.K.data());
  add_external_forces(ctx_, vd, state.x.data(), state.v.data(), n, in.env, float(t), in.grab, A.grab_k, d.f.data());
  implicit_rhs(ctx_, d.mass.data(), state.v.data(), d.f.data(), n, h, d.rhs.data());
}

// v_new: the step's system solved (the first solve), the contacts' active
// sets settled in rounds of re-solves, then the Newton iterations
void IClothSolver::solve_velocities(const StepInputs& in, SimState& state, const SystemView& A, float h,
                                    bool resting) {
  Impl& d = *impl_;
  const int n = int(state.size());
  // nothing touches the cloth in this step's solve: the last such step's
  // velocity change is the first solve's guess (IClothParams::cg_warm_start)
  const bool untouched = params_.cg_warm_start && !A.prox.k &&
                         (!resting || count_resting_contacts(ctx_, d.resting.data(), n, d.speed.data()) == 0);
  ScopedStage s(in.timer, "integration");
  d.v_new.copy_from(state.v);
  const CgResult first = first_solve(in, A, h, untouched);
  const CgResult last = contact_rounds(in, state, A, h, resting, first);
  in.stats.set("cg residual", last.rel_residual);
  newton_iterations(in, state, A, first.scale);
  d.warm_valid = untouched;
  if (untouched) velocity_change(ctx_, state.v.data(), d.v_new.data(), n, d.warm_dv.data());
  if (A.prox.k) {  // how far the springs' lagged friction is from Coulomb's law
    ScopedStage check(in.timer, "friction check");
    const ClothRepulsion::FrictionCheck fc = d.repulsion.check_friction(ctx_, d.v_new.data(), h);
    add_stat(in.stats, "pair friction", fc.impulse);
    add_stat(in.stats, "pair friction bound", fc.bound);
    add_stat(in.stats, "pair friction beyond coulomb", fc.beyond);
  }
}

// The step's first PCG solve for v_new, from v_new (or from it plus the last
// untouched step's velocity change).
CgResult IClothSolver::first_solve(const StepInputs& in, const SystemView& A, float h, bool untouched) {
  Impl& d = *impl_;
  // the PCG's tolerance scale (pcg_solve) is never below the P-norm of
  // gravity's impulse on the cloth over the step, ~ sum_i m_i (h |g|)^2
  const double g_impulse = double(h) * double(length(in.env.gravity));
  const double cg_floor = d.cloth_mass * g_impulse * g_impulse;
  if (params_.multigrid && !d.mg.ready()) {  // from the pattern's CSR structure (CSR in either layout)
    ScopedStage setup(in.timer, "multigrid setup");
    d.mg.setup(ctx_, d.pattern.row_offsets.to_host(), d.pattern.cols.to_host(), d.pattern.diag.to_host());
  }
  Multigrid* mg = params_.multigrid ? &d.mg : nullptr;
  const CoarseStart coarse{&d.coarse_pieces, &d.coarse};
  CgResult r;
  {  // (sub-stages of the integration, exclusive times: where a frame's PCG time goes)
    ScopedStage cg(in.timer, "cg first solve");
    r = pcg_solve(ctx_, A, d.rhs.data(), d.v_new.data(), d.cg, params_.cg_max_iterations, params_.cg_tolerance,
                  cg_floor, mg, params_.cg_coarse_start ? &coarse : nullptr,
                  untouched && d.warm_valid ? d.warm_dv.data() : nullptr);
  }
  add_stat(in.stats, "cg iterations", r.iterations);
  add_stat(in.stats, "cg first iterations", r.iterations);
  if (r.shifted) add_stat(in.stats, "cg warm starts", 1);
  return r;
}

// The contacts' active sets after the first solve, in rounds: the cloth-cloth
// springs that pull are released and their friction drags lagged from the last
// solve; the resting obstacle contacts that slip or let go change. After a
// round that changed any, v_new is solved again from where it is, to the
// first solve's tolerance scale. Returns the last solve's result (`first`
// when no round re-solved).
CgResult IClothSolver::contact_rounds(const StepInputs& in, const SimState& state, const SystemView& A, float h,
                                      bool resting, const CgResult& first) {
  Impl& d = *impl_;
  const int n = int(state.size());
  Multigrid* mg = params_.multigrid ? &d.mg : nullptr;
  CgResult r = first;
  const int rounds = A.prox.k ? std::max(params_.spring_rounds, kContactRounds) : kContactRounds;
  for (int round = 0; (A.prox.k || resting) && round < rounds; ++round) {
    ScopedStage updates(in.timer, "contact rounds");
    // the round's counts on the backend, read back at once: released springs,
    // pairs with a drag, resting contacts changed
    double* counts = d.round_counts.data();
    const bool spring_round = A.prox.k && round < params_.spring_rounds;
    const bool resting_round = resting && round < kContactRounds;
    if (spring_round) {
      d.repulsion.release_pulling_springs(ctx_, d.v_new.data(), h, state.inv_mass.data(), d.rhs.data(), counts);
      d.repulsion.lag_friction(ctx_, d.v_new.data(), state.inv_mass.data(), h, counts + 1);
    }
    if (resting_round)
      update_resting_friction(ctx_, A, d.resting.data(), n, d.v_new.data(), kSlipTolerance, d.resting_k.data(),
                              d.rhs.data(), counts + 2, d.round_sum);
    const std::vector<double> c = d.round_counts.to_host();
    const auto count = [&](bool ran, int k) { return ran ? size_t(c[size_t(k)] + 0.5) : size_t(0); };
    const size_t released = count(spring_round, 0), rubbing = count(spring_round, 1), slips = count(resting_round, 2);
    if (spring_round) add_stat(in.stats, "released springs", double(released));
    if (resting_round) add_stat(in.stats, "contact changes", double(slips));
    if (released == 0 && rubbing == 0 && slips == 0) break;
    // to the first solve's scale (already >= cg_floor): a re-solve starts near its
    // answer. Capped at cg_resolve_iterations while the cloth-cloth springs' drags
    // change (their lagged friction did worse in longer re-solves: a vertex kicked
    // 4.6 cm in a funnel frame), with block Jacobi even with the multigrid on: a
    // V-cycle costs ~3.4 Jacobi iterations on the CPU and did not pay in those
    // short corrections. To the tolerance when only obstacle contacts slipped or
    // let go (30 iterations after such a change of the matrix left a sheet landing
    // on a slope 19 % more stretched; RESULTS.md, ninth session), with the
    // multigrid when it is on: those run to the cap while sheets land (58^2
    // funnel, frames 12-20: 782 -> 475 iterations a frame; twenty-first session)
    const bool contacts_only = slips > 0 && released == 0 && rubbing == 0;
    const int cap = contacts_only ? params_.cg_max_iterations
                                  : std::min(params_.cg_resolve_iterations, params_.cg_max_iterations);
    ScopedStage cg(in.timer, "cg re-solves");
    r = pcg_solve(ctx_, A, d.rhs.data(), d.v_new.data(), d.cg, cap, params_.cg_tolerance, first.scale,
                  contacts_only ? mg : nullptr);
    add_stat(in.stats, "cg iterations", r.iterations);
    add_stat(in.stats, "cg re-solve iterations", r.iterations);
  }
  return r;
}

// the resting contacts' friction settled, then the obstacles' velocity filters
// (analytic shapes and meshes: obstacle_filter) on v_new
void IClothSolver::obstacle_response(const StepInputs& in, SimState& state, const SystemView& A, float h,
                                     bool resting) {
  Impl& d = *impl_;
  const int n = int(state.size());
  ScopedStage s(in.timer, "obstacles");
  if (resting)
    finish_resting_friction(ctx_, A, d.resting.data(), n, d.v_new.data(), d.rhs.data(), d.stuck.data(),
                            d.carried.data());
  if (in.obstacles.has_meshes()) {
    // the filter's contacts: the end-of-step surface nearest to where each vertex
    // is headed (x + h v), on the side it came from. Taken at x, the plane of the
    // nearest point there stood in for a body that, curved, moved 1 cm under the
    // cloth: the dress's filtered ends lay up to 6 mm inside the thigh, and the
    // CCD found 8x the cloth-obstacle impacts (RESULTS.md, twelfth session)
    float radius = 2.f * d.max_thickness + h * max_speed(ctx_, d.v_new.data(), n, d.speed.data()) +
                   d.mesh_prox.max_displacement();
    predict_positions(ctx_, state.x.data(), d.v_new.data(), state.inv_mass.data(), n, h, d.x_new.data());
    d.mesh_prox.query(ctx_, d.x_new.data(), n, radius, d.contacts.data(), state.x.data());
  }
  obstacle_filter(in, state, h, params_.obstacle_passes);
}

// The step above is one Newton iteration of backward Euler,
//   M (v - v0) = h f(x + h v, v),
// linearised at the start x (Baraff & Witkin 1998). For a flat sheet at rest
// length that linearisation has no stiffness across the sheet: a vertex stopped
// by an obstacle while its neighbours fall on stretches, to first order, no edge,
// and the solve lets the neighbours go. A sheet whose corner met the funnel's rim
// at 2 m/s came out of one step with edges 60 % too long (58^2 vertices a
// sheet); a sheet landing corner first on a slope, 30 % (RESULTS.md, tenth
// session). So while the solved end x* = x + h v* stretches some edge by more
// than newton_strain beyond its strain at x (at most newton_iterations times;
// a state handed over stretched, which relaxes, does not count), the elastic
// forces and K are linearised again at x* and the step is solved again from v*:
//   A* v = b0 + h (f(x*) - f(x)) + h^2 K* v*,
// A* = A with K*, the contacts' springs, the grab and the damping as they were
// (b0 again for a linear force). K is the projected (positive semi-definite)
// stiffness, not the force's Jacobian, so the iterations need not converge: an
// iteration whose end stretches an edge no less than the last one's is
// dropped, and the iterations stop there (a sheet thrown past a pinned corner:
// largest strain 1.59, 0.25, 0.05, 0.03 after 0-3 iterations, then 0.12). The
// solves are block-Jacobi PCG to the step's tolerance, capped at
// cg_resolve_iterations while cloth-cloth springs are in the system: their
// friction is a drag lagged from the last solve, which a long solve lets carry
// a vertex far (58^2 funnel: a vertex under a landing sheet kicked 1.4 cm in a
// frame, edges +120-220 % in 4 of 5 starts uncapped). Like the pair springs,
// not from a start that may be tangled (another solver's state: Verlet swings
// handed over grew their tangles, 2 -> 4 and 15 -> 18 pairs, with them).
void IClothSolver::newton_iterations(const StepInputs& in, SimState& state, const SystemView& A, double cg_scale) {
  Impl& d = *impl_;
  const int n = int(state.size()), nedges = int(d.edges.size());
  const float h = A.h;
  // the largest growth of an edge's strain from x to the end x + h v_new (x_new is left there)
  auto growth = [&] {
    predict_positions(ctx_, state.x.data(), d.v_new.data(), state.inv_mass.data(), n, h, d.x_new.data());
    return max_edge_strain_growth(ctx_, state.x.data(), d.x_new.data(), d.edges.data(), d.edge_rest.data(), nedges,
                                  d.edge_scratch.data());
  };
  if (params_.newton_iterations <= 0 || d.check_tangles) return;
  ScopedStage stage(in.timer, "newton");
  float grown = growth();
  for (int it = 0; it < params_.newton_iterations && grown > params_.newton_strain; ++it) {
    if (it == 0) {  // the linearisation at x: its right-hand side and elastic forces
      for (auto* b : {&d.newton_b0, &d.newton_f0, &d.newton_f, &d.newton_kv, &d.newton_v}) b->resize(ctx_, size_t(n));
      d.newton_b0.copy_from(d.rhs);
      gather_elastic_forces(ctx_, A.pat, d.el_out(), d.newton_f0.data());
    }
    d.newton_v.copy_from(d.v_new);
    eval_elements(ctx_, d.el_in(), d.x_new.data(), d.el_out());
    gather_elastic_forces(ctx_, A.pat, d.el_out(), d.newton_f.data());
    gather_stiffness(ctx_, A.pat, d.el_in(), d.el_out(), d.K.data());
    stiffness_product(ctx_, A, d.v_new.data(), d.newton_kv.data());
    relinearised_rhs(ctx_, n, h, d.newton_b0.data(), d.newton_f0.data(), d.newton_f.data(), d.newton_kv.data(),
                     d.rhs.data());
    const int cap = A.prox.k ? std::min(params_.cg_resolve_iterations, params_.cg_max_iterations)
                             : params_.cg_max_iterations;
    CgResult r = pcg_solve(ctx_, A, d.rhs.data(), d.v_new.data(), d.cg, cap, params_.cg_tolerance, cg_scale, nullptr);
    add_stat(in.stats, "newton iterations", 1.0);
    add_stat(in.stats, "cg iterations", r.iterations);
    add_stat(in.stats, "cg newton iterations", r.iterations);
    const float next = growth();
    if (!(next < grown)) {  // no better: keep the last iterate
      d.v_new.copy_from(d.newton_v);
      add_stat(in.stats, "newton rejected", 1.0);
      return;
    }
    grown = next;
  }
}

SystemView IClothSolver::system_view(const StepInputs& in, const SimState& state, float h) const {
  const Impl& d = *impl_;
  SystemView A;
  A.pat = d.pattern.view();
  A.K = d.K.data();
  A.mass = d.mass.data();
  A.alpha = d.alpha.data();
  A.inv_mass = state.inv_mass.data();
  A.h = h;
  A.beta = params_.stiffness_damping;
  A.grab = in.grab;
  A.grab_k = params_.grab_stiffness * in.grab.stiffness;
  A.k_differences = params_.stiffness_on_differences;
  A.lanes = params_.product_lanes;
  return A;
}

// The contacts that enter the solve as springs (after the forces and the
// right-hand side, before the PCG): resting obstacle contacts (resting_contacts.h)
// and closing cloth-cloth pairs (ClothRepulsion::springs; proximity_stiffness > 0), against the
// shapes posed for this step. Returns whether resting contacts were looked for
// (then resting_friction follows the solve).
bool IClothSolver::add_contact_springs(const StepInputs& in, const SimState& state, bool use_repulsion,
                                       SystemView& A) {
  Impl& d = *impl_;
  const int n = int(state.size());
  const float h = A.h;
  const bool resting =
      params_.obstacle_stiffness > 0.f && (in.obstacles.has_meshes() || !in.obstacles.shapes.empty());
  // not from a start that may be tangled: across an intersection a pair's
  // normal points to the wrong side, and its spring would hold the tangle
  const bool pair_springs = use_repulsion && params_.proximity_stiffness > 0.f && !d.check_tangles;
  if (!resting && d.stuck_set) d.forget_resting_friction();  // switched off or no obstacles left
  if (pair_springs) {
    d.diag_block.resize(ctx_, size_t(n));
    system_diagonal_blocks(ctx_, A, d.diag_block.data());
    A.prox = d.repulsion.springs(ctx_, state.v.data(), d.diag_block.data(), state.inv_mass.data(), h,
                                 params_.proximity_stiffness);
    if (params_.repulsion_ahead > 0.f && A.prox.k)
      d.repulsion.allowance_rhs(ctx_, h, state.inv_mass.data(), 1.f, false, d.rhs.data());
    add_stat(in.stats, "pair springs", double(d.repulsion.num_springs()));
  }
  if (!resting) return false;
  ScopedStage s(in.timer, "resting contacts");
  if (in.obstacles.has_meshes()) {
    // within reach of the end-of-step surface, which may have swept up to the
    // obstacles' largest displacement past a vertex: such a vertex, overtaken
    // (its distance below -reach), is drawn out with the surface in the solve
    // together with its neighbours. Without the displacement in the radius only
    // the vertices within reach of it were found, the filter and the zones
    // then moved the overtaken ones alone: the dress's skirt on the kicking
    // thigh (8-48 mm a step) reached strain 20 (RESULTS.md, fourteenth session).
    const float radius = kRestingReach * d.max_thickness + d.mesh_prox.max_displacement();
    d.mesh_prox.query(ctx_, state.x.data(), n, radius, d.contacts.data(), state.x.data());
  }
  find_resting_contacts(ctx_, in.obstacles.has_meshes() ? d.contacts.data() : nullptr, d.shape_start.data(),
                        d.shape_end.data(), int(d.shape_end.size()), A, state.x.data(),
                        state.v.data(), d.thickness.data(), d.stuck.data(), d.carried.data(), kRestingReach,
                        params_.obstacle_stiffness, d.resting.data(), d.resting_k.data());
  add_resting_rhs(ctx_, d.resting.data(), n, h, d.rhs.data());
  A.extra = d.resting_k.data();
  d.stuck_set = true;
  return true;
}

// Jacobi passes of the proximity filter until every pair is met (at most
// rs.passes), the obstacle filter after each pass that found unmet pairs (the
// obstacles have the last word). On the GPU the passes are launched in batches
// and the host reads where they stand once per batch; passes after convergence
// do nothing but the (idempotent) obstacle filter. On the CPU every pass is
// checked, as the filter's definition reads.
void IClothSolver::repulsion_passes(const StepInputs& in, SimState& state, float h) {
  Impl& d = *impl_;
  const RepulsionSettings rs = repulsion_settings();
  if (d.repulsion.num_pairs() == 0) return;
  const int batch = ctx_.is_cuda() ? kRepulsionBatch : 1;
  ClothRepulsion::Progress pr;
  for (int launched = 0; launched < rs.passes && !pr.converged;) {
    for (int k = 0; k < batch && launched < rs.passes; ++k, ++launched) {
      d.repulsion.launch_pass(ctx_, d.v_new.data(), state.inv_mass.data(), h, rs);
      if (batch == 1 && d.repulsion.progress().converged) break;
      obstacle_filter(in, state, h, 1);
    }
    pr = d.repulsion.progress();
  }
  add_stat(in.stats, "repulsion pairs", double(d.repulsion.num_filter_pairs()));
  add_stat(in.stats, "repulsion impulses", double(pr.first_unmet));
  add_stat(in.stats, "repulsion passes", double(pr.passes));
}

RepulsionSettings IClothSolver::repulsion_settings() const {
  RepulsionSettings rs;
  rs.scale = params_.repulsion_scale;
  rs.rate = params_.repulsion_rate;
  // pairs ahead serve only as springs: none in a step without them (a tangled
  // start, or the filter alone)
  rs.ahead = params_.proximity_stiffness > 0.f && !impl_->check_tangles ? params_.repulsion_ahead : 0.f;
  rs.passes = params_.repulsion_passes;
  rs.rest_limit = params_.repulsion_rest_limit;
  return rs;
}

// the analytic-shape and mesh-obstacle velocity filters on v_new
void IClothSolver::obstacle_filter(const StepInputs& in, SimState& state, float h, int passes) {
  Impl& d = *impl_;
  const int n = int(state.size());
  shape_velocity_filter(ctx_, d.shape_start.data(), d.shape_end.data(), int(d.shape_end.size()), state.x.data(),
                        d.v_new.data(), state.inv_mass.data(), d.thickness.data(), n, h, passes);
  if (in.obstacles.has_meshes())
    mesh_velocity_filter(ctx_, d.contacts.data(), state.x.data(), d.v_new.data(), state.inv_mass.data(),
                         d.thickness.data(), n, h);
}

namespace {

void lerp_positions(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b, float t, std::vector<Vec3f>& out) {
  out.resize(b.size());
  for (size_t i = 0; i < b.size(); ++i) out[i] = lerp(a[i], b[i], t);
}

// a step's collision handling into the frame's statistics
void record_collision_stats(FrameStats& fs, const CollisionStats& st, size_t tangled_pairs) {
  add_stat(fs, "ccd rounds", st.rounds);
  add_stat(fs, "ccd pairs full", double(st.pairs_full));
  add_stat(fs, "ccd pairs incremental", double(st.pairs_incremental));
  add_stat(fs, "ccd feature tests", double(st.feature_tests));
  add_stat(fs, "impacts", double(st.impacts));
  add_stat(fs, "obstacle impacts", double(st.obstacle_impacts));
  add_stat(fs, "zones", double(st.zones));
  add_stat(fs, "zone iterations", double(st.zone_iterations));
  add_stat(fs, "zone failures", double(st.zone_failures));
  add_stat(fs, "zone overreach", double(st.zone_overreach));
  add_stat(fs, "zone followers", double(st.followers));
  add_stat(fs, "fallbacks", double(st.fallbacks));
  add_stat(fs, "rigid rounds", double(st.rigid_rounds));
  add_stat(fs, "excluded features", double(st.excluded));
  add_stat(fs, "tangle pushes", double(st.tangle_pushes));
  add_stat(fs, "tangle pushes dropped", double(st.pushes_dropped));
  add_stat(fs, "tangle holds", double(st.tangle_holds));
  add_stat(fs, "zone stalls", double(st.stalls));
  add_stat(fs, "held steps", double(st.held_steps));
  add_stat(fs, "held vertices", double(st.held_vertices));
  add_stat(fs, "clamped steps", double(st.clamped));
  add_stat(fs, "unresolved steps", double(st.unresolved));
  add_stat(fs, "reverted steps", double(st.reverted));
  fs.set("tangled pairs", std::max(fs.get("tangled pairs"), double(tangled_pairs)));
}

}  // namespace

// Algorithm 1: CCD x -> x_new, impact zones, rigid fallback. The first CCD pass
// runs on the backend's arrays; only a step where it found impacts (or that
// starts tangled) makes host copies of the cloth and resolves them there.
// Returns whether the first pass found the solved motion clean.
bool IClothSolver::resolve_collisions(const StepInputs& in, SimState& state, float tau0, float tau1) {
  Impl& d = *impl_;
  std::vector<Vec3f> ox0, ox1;
  const ObstacleSet& o = in.obstacles;
  lerp_positions(o.mesh_x_prev, o.mesh_x, tau0, ox0);
  lerp_positions(o.mesh_x_prev, o.mesh_x, tau1, ox1);
  CollisionSettings cs;
  cs.self_collision = params_.self_collision && in.self_collision;
  cs.incremental = params_.incremental_ccd;
  cs.max_rounds = params_.collision_rounds;
  cs.max_rigid_rounds = params_.rigid_rounds;
  cs.untangle = params_.untangle && d.seen_clean_start;
  cs.hold_impacts = params_.hold_impacts;
  // like the pushes: a tangled hand-over's zones keep their rim still and
  // have no membrane (with either, the swings of tangled_start_test grew tangles:
  // the followers froze two, the membrane took one from 35 to 37 pairs)
  cs.follow_strain = d.seen_clean_start ? params_.zone_follow : 0.f;
  cs.zone.mu = params_.zone_mu;
  cs.zone.max_iterations = params_.zone_iterations;
  cs.zone.rho = params_.chebyshev_rho;
  cs.zone.membrane = d.seen_clean_start ? params_.zone_membrane : 0.f;
  cs.membrane_strain = params_.zone_membrane_strain;
  d.collisions.set_timer(&in.timer);
  CollisionHandler::FirstPass first;
  if (!d.check_tangles) {
    d.collisions.set_tangles({});
    const CollisionInput oi{nullptr, nullptr, nullptr, nullptr, &d.h_thickness, &ox0, &ox1, &o.mesh_tris};
    first = d.collisions.first_pass(ctx_, {state.x.data(), d.x_new.data(), state.inv_mass.data()}, oi, cs);
    if (first.ran && first.hits.empty()) {  // clean as solved: x_new stays (and check_tangles false)
      d.collisions.set_timer(nullptr);
      record_collision_stats(in.stats, first.stats, d.collisions.num_tangles());
      return true;
    }
  }
  std::vector<Vec3f> x0, x_free;
  std::vector<float> w;
  {
    ScopedStage copies(in.timer, "collision host copies");
    x0 = state.x.to_host();
    x_free = d.x_new.to_host();
    w = state.inv_mass.to_host();
  }
  CollisionInput ci{&x0, &x_free, &d.h_mass, &w, &d.h_thickness, &ox0, &ox1, &o.mesh_tris};
  if (d.check_tangles) {
    ScopedStage t(in.timer, "tangle check");
    d.collisions.set_tangles(d.collisions.find_tangles(ctx_, ci));
  }
  std::vector<Vec3f> x1 = x_free;
  CollisionStats st = d.collisions.resolve(ctx_, ci, cs, x1, &first);
  d.collisions.set_timer(nullptr);
  d.check_tangles = d.collisions.num_tangles() > 0 || st.unresolved > 0;
  {
    ScopedStage copies(in.timer, "collision host copies");
    d.x_new.upload(ctx_, x1);
  }
  record_collision_stats(in.stats, st, d.collisions.num_tangles());
  return false;
}

}  // namespace icloth
}  // namespace cb
