// Penetration handling of I-Cloth (Tang et al. 2018, Algorithm 1 and Sec. 4):
//   round 1: CCD over all triangle pairs of the step (cloth-cloth, cloth-obstacle,
//            obstacles moving) from the spatial-hash candidates;
//   impacts -> the vertices V_c, impact zones (union-find over shared vertices;
//            obstacle and pinned vertices are fixed), each solved by the
//            augmented-Lagrangian zone solver (zone_solver.h);
//   round k: triangles touching V_c form T_d, the rest T_s; only T_d-T_s and
//            T_d-T_d pairs are re-checked; repeat until no impact is found.
// When rounds run out, or a zone does not converge or moves a vertex beyond the
// step's reach (a few times the zone's free motion plus the obstacles'; see
// zone_overreaches in the .cpp), rigid impact zones (Provot 1997; Bridson et al.
// 2002) take over: each zone moves rigidly with its momentum (or, when it holds
// obstacle or pinned vertices, moves with them: by the rigid motion that fits
// theirs best, or where none does, each vertex with the fixed points near it;
// rigid_zones.h), zones merge with new impacts, until none is left.
// The broad phase (collision_kernels.h) and the narrow phase (narrow_phase.h:
// feature pairs, exact CCD) and the zone solve (zone_batch.h: one thread block per
// zone on the GPU) run on the backend; the zones are built (union-find) and the
// rigid fallback (rigid_zones.h) runs on host copies of the positions.
//
// Tangled starts. The method assumes the step starts intersection-free; a state
// handed over by another solver (or moved by the user) may not be. Before a step
// find_tangles() lists the triangle pairs that already intersect at x0 (the
// collision core's exact counter) and set_tangles() excludes every VF and EE
// feature pair of those triangle pairs from the CCD: they may move through each
// other and untangle instead of being pinned by impacts no solution can meet
// (in the spirit of Baraff, Witkin, Kass 2003 and of Bridson's "ignore
// collisions of features already in intersection"). Every other feature keeps
// the guarantee, so a step that starts intersection-free still ends so. Nothing
// drives such features apart, though, and contacts hold each vertex on the side
// it starts on; so with CollisionSettings::untangle the pairs that still cross
// at the end positions are first pushed apart where a vertex or an edge pokes
// shallowly through a triangle (untangle.h), and the push is kept when the zone
// rounds then clear the step (pushed_rounds); if not, the step goes on without it.
//
// Bounded work: at most max_rounds zone rounds (fewer when a round finds only
// impacts the zones already hold: their linearised constraints are met but the
// CCD still sees the pairs, so more rounds cannot help), then at most
// max_rigid_rounds rigid rounds (at most 5 from a tangled start), then (from a
// tangled start, with `hold_impacts`) at most 8 rounds that hold the cloth
// vertices of the impacts left at x0 and check the motion again, the rest of
// the cloth moving on (hold_impacts_at_start: a sheet rolled through itself
// hit the clamp at every sub-step and froze), then one
// clamp: every cloth vertex goes back along its path x0 -> x1 to half the
// earliest time of impact left (the motion up to there is a prefix of the
// checked one, so no cloth pair meets on it) and one more CCD pass checks it.
// A step that started tangled does not take the rigid fallback when the zones'
// result crosses no more triangle pairs than its start did: it keeps that
// result (counted in `unresolved`), since rigid zones would carry the
// handed-over shape along, stretched edges and all (a Verlet swing handed over
// at strain 9 stayed above 2 for frames). When impacts are still left after the
// clamp, a step that started without tangles goes back to its start positions (x1 = x0,
// counted in `reverted`; it loses that step's motion and cannot end intersecting
// itself or a still obstacle); a tangled start keeps the clamp's result (counted
// in `unresolved`). Where that choice crosses triangle pairs at the end of the
// step (a moving obstacle swept into the cloth held at x0: the dress during the
// kick), the one of x0, the rigid zones' and the clamp's results that crosses
// the fewest (exact count) is kept (last_resort), and with `untangle` its shallow
// crossings are pushed apart where that leaves fewer. The next step sees any
// intersection left as a tangle. At most max_rounds + max_rigid_rounds + 2 CCD passes per step
// (from a tangled start with pushes and holds, 2 max_rounds + 5 + 8 + 2).
//
// Pairs that start closer than the CCD separation (possible only in a state
// this solver did not make) are checked against a third of their start
// distance instead, so they are not impacts at t = 0 whatever the end positions.
//
// The fallbacks (rigid rounds and the clamp) ask a CCD query that ran into its
// work cap again at a quarter and a sixteenth of the separation, then for
// touching alone (NarrowInput::relax_capped). A capped answer is a hit at t = 0
// (the start of the earliest box left): for features sliding past each other a
// few separations apart it is no collision at all, yet it merged rigid zones
// that had none and clamped whole steps to no motion — a tangled hand-over
// froze for good. The relaxed answer still never misses touching, so the
// fallbacks' result stays free of intersections; it may end closer than the
// separation, which the rule above handles at the next step. The clamp also
// asks a query still capped again on 2, 4 and 8 pieces of the step
// (NarrowInput::split_capped): its answer, the start of the first piece that
// is not clear, is still a lower bound, and a clamp to t = 0 froze a tangled
// hand-over (every step the same, RESULTS.md, twentieth session). The zone rounds
// keep the strict query: their impacts are what pushes pairs out to the
// thickness.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/backend.h"
#include "sim/collision/penetration.h"
#include "sim/core/buffer.h"
#include "sim/core/timer.h"
#include "sim/solvers/icloth/collision_defaults.h"
#include "sim/solvers/icloth/impacts.h"
#include "sim/solvers/icloth/narrow_phase.h"
#include "sim/solvers/icloth/zone_batch.h"
#include "sim/model/topology.h"
#include "sim/solvers/icloth/zone_solver.h"

namespace cb::icloth {

struct CollisionSettings {
  bool self_collision = true;
  bool incremental = true;     ///< re-check only T_d pairs after the first round
  int max_rounds = kCollisionRounds;  ///< cap on zone rounds
  int max_rigid_rounds = kRigidRounds;  ///< cap on rigid-zone rounds (5 from a tangled start: kTangledRigidRounds)
  float ccd_margin = 0.1f;     ///< CCD minimum separation, as a fraction of the thickness
  bool untangle = true;        ///< push tangled pairs apart before the zones (untangle.h, pushed_rounds)
  /// a tangled start: hold the vertices of the impacts the rigid rounds leave
  /// at x0 before clamping the whole cloth (hold_impacts_at_start)
  bool hold_impacts = true;
  /// a zone's rim follows it past this strain over its free length
  /// (zone_followers.h); 0 = off
  float follow_strain = kZoneFollow;
  /// the zones' membrane (ZoneSettings::membrane) pulls back edges stretched
  /// beyond (1 + this) x their free length
  float membrane_strain = 0.f;
  ZoneSettings zone;
};

struct CollisionStats {
  int rounds = 0;
  uint64_t pairs_full = 0;         ///< candidate triangle pairs of full-CCD passes
  uint64_t pairs_incremental = 0;  ///< candidate triangle pairs of incremental passes
  uint64_t feature_tests = 0;      ///< VF + EE CCD queries
  uint64_t impacts = 0;
  uint64_t obstacle_impacts = 0;   ///< of those, cloth-obstacle ones
  uint64_t zones = 0;              ///< zones solved (summed over rounds)
  uint64_t zone_iterations = 0;
  uint64_t zone_failures = 0;      ///< zones that did not converge
  uint64_t followers = 0;          ///< vertices moved after a zone that stretched their edge (zone_followers.h)
  uint64_t zone_overreach = 0;     ///< zones whose solution moved a vertex beyond the step's reach (kept at their guess)
  uint64_t fallbacks = 0;          ///< steps that needed rigid impact zones
  uint64_t rigid_rounds = 0;
  uint64_t excluded = 0;           ///< feature pairs skipped because their triangles were tangled at x0
  uint64_t tangle_pushes = 0;      ///< steps whose pushes apart (untangle.h) were kept: a tangled start's
                                   ///< the zones cleared, or the last resort's that leave fewer crossings
  uint64_t pushes_dropped = 0;     ///< tangled steps whose pushes the zones could not clear
  uint64_t tangle_holds = 0;       ///< tangled steps whose new crossings were undone by holding their
                                   ///< cloth vertices at x0 (hold_new_crossings)
  uint64_t stalls = 0;             ///< zone rounds stopped because two rounds in a row found only known impacts
  uint64_t held_steps = 0;         ///< tangled steps cleared by holding the impacts' vertices at x0
  uint64_t held_vertices = 0;      ///< the vertices those holds held
  uint64_t clamped = 0;            ///< steps shortened to half the first time of impact left
  uint64_t unresolved = 0;         ///< steps from a tangled start that ended with impacts left (caps hit)
  uint64_t reverted = 0;           ///< steps from a clean start that went back to x0 (caps hit)
};

/// What one call sees: host arrays for the cloth and the obstacle triangle mesh.
struct CollisionInput {
  const std::vector<Vec3f>* x0 = nullptr;       ///< (nverts) m, cloth at the start of the step
  const std::vector<Vec3f>* x_free = nullptr;   ///< (nverts) m, unconstrained end positions
  const std::vector<float>* mass = nullptr;     ///< (nverts) kg
  const std::vector<float>* inv_mass = nullptr; ///< (nverts) 0 = pinned (fixed)
  const std::vector<float>* thickness = nullptr;///< (nverts) m
  const std::vector<Vec3f>* obs_x0 = nullptr;   ///< (nobsverts) m, obstacle vertices at the start
  const std::vector<Vec3f>* obs_x1 = nullptr;   ///< (nobsverts) m, at the end
  const std::vector<Int3>* obs_tris = nullptr;  ///< (nobstris) ids into obs_x*
};

class CollisionHandler {
 public:
  /// Remembers the cloth triangles (ids into the cloth vertices) and the rings
  /// of their topology (build_topology(nverts, tris)).
  void set_cloth(size_t nverts, const std::vector<Int3>& tris, const Topology& topo);
  /// The cloth's positions and inverse masses on the backend (nverts each).
  struct BackendPositions {
    const Vec3f* x0 = nullptr;      ///< m, start of the step
    const Vec3f* x1 = nullptr;      ///< m, unconstrained end
    const float* inv_mass = nullptr;
  };
  /// The step's first CCD pass (resolve()'s first zone round) on the backend's
  /// own cloth arrays, without host copies of them: in the stacked 200k funnel
  /// on an H200 those copies took 3.5 ms of a 71 ms frame, in steps where the
  /// pass found nothing. `in` gives only the obstacle and the thickness here.
  struct FirstPass {
    bool ran = false;             ///< false from a tangled start: resolve() does it all
    std::vector<FeatureHit> hits; ///< none: x0 -> x1 is clean as it is
    CollisionStats stats;         ///< the pass's counts (one round)
  };
  FirstPass first_pass(const Context& ctx, const BackendPositions& b, const CollisionInput& in,
                       const CollisionSettings& s);
  /// Modifies x1 (nverts, starts as the unconstrained end positions) so that no
  /// feature pair collides over the step x0 -> x1. With `first` (first_pass on
  /// the same positions), its hits stand for the first round's CCD (made into
  /// impacts from in's host positions).
  CollisionStats resolve(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                         std::vector<Vec3f>& x1, const FirstPass* first = nullptr);
  /// Triangle pairs (i < j, soup numbering: cloth triangles, then obstacle
  /// triangles ncloth + j) that intersect at the start positions in.x0 / in.obs_x0.
  std::vector<Int2> find_tangles(const Context& ctx, const CollisionInput& in);
  /// The CCD ignores the VF and EE feature pairs of these triangle pairs (soup
  /// numbering as find_tangles) until the next call; {} restores the full CCD.
  void set_tangles(const std::vector<Int2>& pairs);
  size_t num_tangles() const { return num_tangles_; }
  /// Times the stages of resolve() ("ccd", "impact zones", "rigid zones") as
  /// stages nested in the caller's (nullptr: untimed).
  void set_timer(StageTimer* t) { timer_ = t; }
  /// Impacts found by the last CCD pass (tests compare full and incremental CCD).
  std::vector<Impact> detect(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                             const std::vector<Vec3f>& x1, const std::vector<uint8_t>* td, CollisionStats* st);
  size_t device_bytes() const {
    return boxes_.bytes() + pairs_.bytes() + soup_x0_.bytes() * 2 + soup_tris_.bytes() + soup_w_.bytes() +
           narrow_.device_bytes();
  }

 private:
  void build_soup(const Context& ctx, const CollisionInput& in, const std::vector<Vec3f>& x1);
  /// The soup's triangles (cloth, then obstacle) when the obstacle's count changed.
  void update_soup_triangles(const Context& ctx, const CollisionInput& in);
  /// Broad and narrow phase over the soup as uploaded (td: T_d flags or null).
  std::vector<FeatureHit> find_hits(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                                    const std::vector<uint8_t>* td, CollisionStats* st, bool relax_capped,
                                    bool split_capped);
  std::vector<Impact> impacts_from_hits(const std::vector<FeatureHit>& hits, const std::vector<float>& thickness) const;
  bool pushed_rounds(const Context& ctx, const CollisionInput& in, const CollisionSettings& s, std::vector<Vec3f>& x1,
                     CollisionStats& st);
  /// Triangle pairs (cloth-cloth and cloth-obstacle) that intersect at x1 / obs_x1.
  /// (the pairs themselves, soup numbering, into *pairs when given)
  size_t crossing_pairs(const Context& ctx, const CollisionInput& in, const std::vector<Vec3f>& x1,
                        std::vector<Int2>* pairs = nullptr);
  /// The collision core's counter on the soup at x (soup_x0_ or soup_x1_).
  IntersectionCounts soup_intersections(const Context& ctx, const Vec3f* x, std::vector<Int2>* pairs);
  /// td = 1 at the cloth triangles around the vertices `verts` (others unchanged).
  void mark_triangles(const std::vector<int>& verts, std::vector<uint8_t>& td) const;
  /// td (cloth triangles) = 1 where a triangle touches a vertex of the zones, else 0.
  void mark_touching(const std::vector<std::vector<int>>& zone_verts, std::vector<uint8_t>& td) const;
  /// detect() within resolve(): the step's start positions are uploaded once.
  std::vector<Impact> detect_in_step(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                                     const std::vector<Vec3f>& x1, const std::vector<uint8_t>* td,
                                     CollisionStats* st, bool relax_capped = false, bool split_capped = false);
  bool zone_rounds(const Context& ctx, const CollisionInput& in, const CollisionSettings& s, std::vector<Vec3f>& x1,
                   std::vector<Impact>& all, CollisionStats& st, const std::vector<Impact>* first = nullptr);
  bool rigid_rounds(const Context& ctx, const CollisionInput& in, const CollisionSettings& s, std::vector<Vec3f>& x1,
                    std::vector<Impact>& all, CollisionStats& st);
  bool hold_impacts_at_start(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                             std::vector<Vec3f>& x1, CollisionStats& st);
  bool clamp_to_first_impact(const Context& ctx, const CollisionInput& in, const CollisionSettings& s,
                             std::vector<Vec3f>& x1, CollisionStats& st);
  void last_resort(const Context& ctx, const CollisionInput& in, const std::vector<Vec3f>& rigid, bool untangle,
                   std::vector<Vec3f>& x1, CollisionStats& st);
  bool push_apart(const CollisionInput& in, const std::vector<Int2>& pairs, const std::vector<Vec3f>& x1,
                  std::vector<Vec3f>& pushed) const;
  void push_left_crossings(const Context& ctx, const CollisionInput& in, size_t crossing, std::vector<Vec3f>& x1,
                           CollisionStats& st);
  void hold_new_crossings(const Context& ctx, const CollisionInput& in, std::vector<Vec3f>& x1, CollisionStats& st);
  size_t nverts_ = 0;
  std::vector<Int3> cloth_tris_;
  Csr vert_tris_;  ///< (nverts) the triangles around each cloth vertex
  Csr ring1_;      ///< (nverts) the vertices sharing an edge with each (zone followers)
  // combined soup (cloth + obstacles) on the backend and on the host
  std::vector<Vec3f> hx0_, hx1_;
  std::vector<Int3> htris_;
  DeviceBuffer<Vec3f> soup_x0_, soup_x1_;
  DeviceBuffer<Int3> soup_tris_;
  DeviceBuffer<Aabb> boxes_;
  DeviceBuffer<uint8_t> td_;
  DeviceBuffer<Int2> pairs_;
  DeviceBuffer<float> soup_w_;  ///< (cloth vertices) inverse masses, 0 = pinned
  bool soup_start_valid_ = false;  ///< soup_x0_ / soup_w_ / hx0_ hold this step's start (reset by resolve, find_tangles)
  NarrowPhase narrow_;
  ZoneBatchScratch zone_scratch_;
  // triangle pairs tangled at the start: their features are skipped
  std::vector<Int2> tangles_;
  bool tangles_changed_ = false;
  size_t num_tangles_ = 0;
  StageTimer* timer_ = nullptr;
};

}  // namespace cb::icloth
