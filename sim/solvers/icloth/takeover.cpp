// The I-Cloth solver's handling of a state it did not make: the takeover settle
// of a clean hand-over from another solver, and the untangle of a crossed one
// (a hand-over, or a scene that starts crossed). The step itself: solver.cpp.
#include <algorithm>
#include <limits>
#include <vector>

#include "sim/collision/penetration.h"
#include "sim/model/edge_strain.h"
#include "sim/model/kinetic_energy.h"
#include "sim/solvers/icloth/contour_untangle.h"
#include "sim/solvers/icloth/obstacle_pushout.h"
#include "sim/solvers/icloth/solver_impl.h"

namespace cb::icloth {

// The takeover settle. A state handed over by another solver was shaped by that
// solver's model: the Verlet solver's softened springs leave the shipped hanging
// sheet with half its edges stretched past 10 %. Under this solver's membrane
// that is joules of elastic energy, and the first implicit steps turned it into
// motion: 0.13 J of swing became 5.4 J in one frame and the sheet's hem jumped up
// 0.25 m (RESULTS.md, twenty-fourth session). So before the first step, passes of
// one implicit step each start from rest (v = 0) without gravity, with the
// collision handling as in any step: their motion relaxes the mismatch and is
// kept, their velocities are dropped, and the handed velocities are restored
// after. A pass from rest releases as kinetic energy what the next step would;
// the passes stop once one releases at most 5 % of the handed kinetic energy
// plus gravity's over a step, 1/2 M (h g)^2 (the PCG floor's scale, cg_floor).
// A state from pbd or from I-Cloth itself meets that after one pass. The
// passes also stop once they have spent a frame's worth of collision work (the
// CCD and rigid rounds one frame may take: substeps x (collision_rounds +
// rigid_rounds)). Only a clean start settles (the world's check found no
// intersecting pair). From a tangled one each pass runs the tangled-start
// handling: 32 passes took 5 s of a frame on a swing of the tangled sweep
// (tangled_start_test.cpp), and with the work budget the sweep got worse (7
// failing swings instead of 2, tangles grown to 62 pairs; RESULTS.md,
// twenty-fourth session). The friction state the still passes left (stuck,
// carried) is cleared: it is none of the handed motion's. Returns the passes run.
int IClothSolver::settle(const StepInputs& in, SimState& state, float h, int substeps) {
  Impl& d = *impl_;
  const int n = int(state.size());
  Environment still;  // no gravity, wind or drag
  still.gravity = Vec3f{0, 0, 0};
  const StepInputs calm{in.model, still,  in.obstacles, in.grab,  in.dt,          in.substeps,
                        in.time,  in.self_collision,   in.timer,   in.stats, true};  // only a clean start settles
  d.settle_v.copy_from(state.v);
  const double enough = 0.05 * kinetic_energy(ctx_, d.mass.data(), state.v.data(), n, d.energy_scratch) +
                        gravity_energy_bound(0.0, d.cloth_mass, h, in.env.gravity);  // 1/2 M (h g)^2
  const auto work = [&in] { return in.stats.get("ccd rounds", 0) + in.stats.get("rigid rounds", 0); };
  const double budget = work() + double(substeps) * double(params_.collision_rounds + params_.rigid_rounds);
  int pass = 0;
  while (pass < params_.settle_passes) {
    state.v.fill_zero();
    step_once(calm, state, h, in.time, 0.f, 0.f);  // obstacles still, at the frame's start
    ++pass;
    if (kinetic_energy(ctx_, d.mass.data(), state.v.data(), n, d.energy_scratch) <= enough || work() >= budget) break;
  }
  state.v.copy_from(d.settle_v);
  d.forget_resting_friction();
  d.warm_valid = false;  // the passes' changes are from rest, not the handed motion's
  return pass;
}

// The untangle of a crossed start: a state handed over with crossed triangle
// pairs (a Verlet or pbd swing that folded the sheet through itself), or a
// scene whose own start crosses (a mesh that intersects itself at rest, a
// garment through a body), is moved down the length of its intersection
// contours before the frame's first step (contour_untangle.h), positions only,
// on the host; where cloth crosses a mesh obstacle, the cloth inside it is
// first pushed out to its surface (push_out_of_bodies). The result is kept
// only when nothing crosses any more; then a takeover goes on as from a clean
// state (the settle, then the ease), a scene's start simply runs, and
// I-Cloth's promise holds from then on. A body mesh dropped as cloth (wm2_15k,
// 496 pairs at its fingers and hair) is cleared in 24 iterations; the kick
// skirt at scale 0.55 instead of its fitted 0.711, its waist inside the hips
// (227 pairs), by 446 pushes (RESULTS.md, thirtieth session). A result that
// stretches an edge's strain by more than kUntangleGrowth is dropped as torn.
// A partial result is dropped: on the tangled sweep what the descent leaves
// (1-4 pairs, where a fold has collapsed a row of cells so that the cells
// beside it cross at a point or through a sliver) did worse under the
// tangled-start handling than the tangle it came from (a swing at strain 4.4
// after 6 frames instead of below 2). That handling reshapes the state, so the
// untangle is tried again at the start of each frame until one starts clean:
// of the sweep's 90 swings 83 start clean, 5 more within 4 frames, and none
// fails the sweep's test (23 before; RESULTS.md, twenty-ninth session). The
// tries stop after kUntangleFrames frames, or once a try leaves more than
// kUntangleRetryPairs pairs: a crossing that outlasts them (a sheet through a
// plate from edge to edge, a mess of thousands of pairs) would cost a descent
// every frame. A try whose descent leaves pairs runs a second, eager one from
// the same start (kEagerPatience, IClothParams::untangle_eager_smoothings) and
// keeps the one with fewer: a corner whirled across the sheet in the window
// hands over 178 pairs, which the first leaves at 48-80 and the eager one
// clears at I-Cloth's second frame; alone, the eager one left a swing of the
// sweep crossed that the first clears (RESULTS.md, fortieth session).
namespace {

// The untangle's step, in units of the cloth's mean rest edge: 2 mm
// on the 40 x 40 hanging sheet, where 1 mm needed twice the iterations and
// left the same swings crossed (RESULTS.md, twenty-ninth session).
constexpr float kUntangleStep = 0.07f;
// How far around the crossed triangles the untangle may move the cloth, in
// steps: 5 cm on the sheet, where no swing's untangle moved a vertex more
// than 4.5 cm.
constexpr float kUntangleReach = 25.f;

float mean_of(const std::vector<float>& v) {
  double sum = 0;
  for (float e : v) sum += double(e);
  return v.empty() ? 0.f : float(sum / double(v.size()));
}

// The most a vertex moves in one untangle iteration, in units of its shortest
// rest edge: a garment's seams and darts have edges of a tenth of a
// millimetre, which a step of the mean edge would stretch many-fold (the
// dress_knife drape of ../shared: strain 3.6 after its untangle uncapped, 1.09
// with this cap, 0.87 with a quarter edge, which raised the wm2_15k body's
// first frame from 0.04 to 0.19; RESULTS.md, thirtieth session). On an even
// sheet the step (0.07 mean edges) is below it.
constexpr float kUntangleMoveOverEdge = 0.5f;

// The most an untangle may stretch an edge (strain growth): a result beyond
// it is dropped as torn. The kick skirt at 0.59 of its size, its waist up to
// 6 cm inside the ribs, came out clean but at strain 110 (a waistband vertex
// pushed out through the body's far side); the tangled sweep's 94 cleared
// untangles grew an edge's strain by 1.63 at most, the starts cleared in
// RESULTS.md (thirtieth session) by 1.56.
constexpr float kUntangleGrowth = 3.f;

// The eager second untangle's patience (ContourSettings::patience), in
// iterations: it smooths three times as soon as the first (60).
constexpr int kEagerPatience = 20;

// (nverts) m: kUntangleMoveOverEdge times each vertex's shortest rest edge
std::vector<float> untangle_moves(const ClothModel& m) {
  std::vector<float> out(m.num_vertices(), std::numeric_limits<float>::max());
  for (size_t e = 0; e < m.topo.edges.size(); ++e) {
    const float move = kUntangleMoveOverEdge * m.rest_edge_length[e];
    for (int v : {m.topo.edges[e].a, m.topo.edges[e].b}) out[size_t(v)] = std::min(out[size_t(v)], move);
  }
  return out;
}

}  // namespace

bool IClothSolver::untangle_crossed(const StepInputs& in, SimState& state) {
  Impl& d = *impl_;
  const std::vector<Vec3f> handed = state.x.to_host();
  const std::vector<float> inv_mass = state.inv_mass.to_host();
  const float step = kUntangleStep * mean_of(in.model.rest_edge_length);
  const bool bodies = in.obstacles.has_meshes();
  size_t handed_pairs = 0;  // all crossed pairs as handed (counted by the push-out where it runs)
  const size_t pushed =
      bodies ? push_out_of_bodies(in, state, handed, inv_mass, kUntangleReach * step, handed_pairs) : 0;
  std::vector<Vec3f> x = pushed > 0 ? state.x.to_host() : handed;
  const std::vector<uint32_t> piece = d.tri_piece.to_host();
  const ObstacleSet& o = in.obstacles;
  const std::vector<float> max_move = untangle_moves(in.model);
  const ContourInput ci{&in.model.tris, &piece, &inv_mass, &o.mesh_x_prev, &o.mesh_tris, &max_move};
  ContourSettings cs;
  cs.max_iterations = params_.untangle_iterations;
  cs.smooth_tries = params_.untangle_smoothings;
  cs.step = step;
  cs.reach = kUntangleReach * cs.step;
  ContourResult r = untangle_contours(ci, cs, x);
  if (r.end_pairs > 0 && params_.untangle_eager_smoothings > 0) {  // too deep a crumple: the eager one
    ContourSettings eager = cs;
    eager.patience = kEagerPatience;
    eager.smooth_tries = params_.untangle_eager_smoothings;
    std::vector<Vec3f> y = pushed > 0 ? state.x.to_host() : handed;  // the first one's start: state.x is as it was
    const ContourResult e = untangle_contours(ci, eager, y);
    in.stats.set("untangle eager pairs after", double(e.end_pairs));
    if (e.end_pairs < r.end_pairs) x.swap(y), r.end_pairs = e.end_pairs;
    r.iterations += e.iterations;  // the stats count the work of both untangles, kept or not
    r.smoothings += e.smoothings;
  }
  if (!bodies) handed_pairs = r.start_pairs;
  in.stats.set("untangle pairs before", double(handed_pairs));
  in.stats.set("untangle pairs after", double(r.end_pairs));  // > 0: the result was dropped
  in.stats.set("untangle iterations", double(r.iterations));
  in.stats.set("untangle smoothings", double(r.smoothings));
  d.untangle_left = r.end_pairs;
  bool moved = pushed > 0, kept = r.end_pairs == 0;
  if (kept) {
    state.x.upload(ctx_, x);
    moved = true;
    const DeviceBuffer<Vec3f> before(ctx_, handed);
    const float growth = max_edge_strain_growth(ctx_, before.data(), state.x.data(), d.edges.data(),
                                                d.edge_rest.data(), int(d.edges.size()), d.edge_scratch.data());
    in.stats.set("untangle strain growth", double(growth));
    kept = growth <= kUntangleGrowth;
    if (!kept) d.untangle_left = handed_pairs;  // torn: the state keeps what it was handed
  }
  if (!kept && moved) state.x.upload(ctx_, handed);
  return kept;
}

// The untangle's first part where cloth crosses a mesh obstacle: the cloth
// vertices inside a body near the crossed triangles (their box grown by
// `reach`) are pushed out to its surface (obstacle_pushout.h), since the
// contour descent cannot pull a garment out of a body it lies in all around.
// x: the state's positions on the host. `crossed` receives all crossed pairs
// as handed; returns the vertex moves made, pushes and the rim's (0: the
// state untouched).
size_t IClothSolver::push_out_of_bodies(const StepInputs& in, SimState& state, const std::vector<Vec3f>& x,
                                        const std::vector<float>& inv_mass, float reach, size_t& crossed) {
  Impl& d = *impl_;
  const ObstacleSet& o = in.obstacles;
  const int ntris = int(d.tris.size());
  TriSet cloth{state.x.data(), d.tris.data(), ntris, d.tri_piece.data()};
  TriSet obst{o.d_mesh_x.data(), o.d_mesh_tris.data(), int(o.mesh_tris.size()), nullptr};
  std::vector<Int2> pairs;
  crossed = size_t(count_intersections(ctx_, cloth, obst, &pairs).total());
  Aabb box;
  for (const Int2& p : pairs)
    if (p.b >= ntris)
      for (int k = 0; k < 3; ++k) box.grow(x[size_t(in.model.tris[size_t(p.a)][k])]);
  if (box.empty()) return 0;  // no cloth-obstacle pair
  // a garment inside a body all around crosses it only where it comes out (a
  // ring below the hips): the cloth inside lies within the ring's width of it
  const Vec3f ext = box.extent();
  reach = std::max(reach, std::max(ext.x, std::max(ext.y, ext.z)));
  box.lo -= Vec3f{reach, reach, reach};
  box.hi += Vec3f{reach, reach, reach};
  std::vector<uint8_t> near(x.size(), 0);
  for (size_t v = 0; v < x.size(); ++v) near[v] = box.contains(x[v]) ? 1 : 0;
  PushOutSettings ps;
  ps.half_thickness = 0.5f * d.max_thickness;
  ps.ray_length = reach;
  const PushOutResult r =
      push_out_of_obstacles(ctx_, in.model.tris, in.model.topo.vert_tris, in.model.topo.ring1, o, inv_mass, near, ps,
                            state.x);
  in.stats.set("untangle pushed out", double(r.moved));
  in.stats.set("untangle rim carried", double(r.rim));
  return r.moved + r.rim;
}

}  // namespace cb::icloth
