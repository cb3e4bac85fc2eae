// Cloth-cloth proximity repulsion and Coulomb friction of the I-Cloth solver
// (Tang et al. 2018, Sec. 3; Bridson, Fedkiw, Anderson 2002, Sec. 7.1-7.2), as a
// velocity filter applied after the implicit solve:
//  1. proximity: at the start of the step x, every non-adjacent vertex-face and
//     edge-edge pair closer than D = scale * thickness (broad phase:
//     find_ccd_candidates of the collision core with x0 = x1 = x and margin D/2;
//     narrow phase: closest_point_triangle / closest_points_segments). Each pair
//     is kept as weights w (VF: 1, -b0, -b1, -b2; EE: 1-s, s, -(1-t), -t, so that
//     sum_k w_k x_k is the vector between the closest points), the unit normal n
//     along it and the overlap D - distance. Optionally (rest_limit), pairs of
//     one piece already closer than D in the rest shape use 0.9 x their rest
//     distance instead of D: on a mesh with edges shorter than D every vertex
//     otherwise repels its own 2-ring and the cloth stretches in free fall.
//     Pairs ahead: with RepulsionSettings::ahead > 0 the search reaches to
//     D + ahead * thickness; a pair beyond D (overlap < 0) is kept only when it
//     has a spring direction, and serves only as a spring in the solve (below).
//  2. filter passes: for every pair, the relative normal velocity
//       v_N = n . sum_k w_k v_k
//     is raised to at least rate * overlap / h (an inelastic impulse that stops the
//     approach, plus Bridson's spring-like push limited to a fraction of the
//     overlap per step); the normal velocity change dv_N sets Coulomb friction,
//     which removes up to mu * dv_N of the relative tangential velocity. The
//     impulse lambda = dv / sum_k w_k^2 / m_k gives vertex k the change
//     w_k lambda / m_k (momentum is conserved: sum_k w_k = 0); pinned vertices
//     (inverse mass 0) do not move. Pairs sharing vertices are combined Jacobi
//     style: each pair's impulse is divided by the largest number of active
//     pairs at any of its free vertices (one factor per pair, so momentum stays
//     conserved), the vertices sum them, and the pass is repeated.
// Gather-only: pair results are summed per vertex through a sorted incidence list,
// so the CPU result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collision/ccd_candidates.h"
#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/core/rows_sum.h"
#include "sim/solvers/icloth/mat3.h"

namespace cb::icloth {

/// One proximity pair: VF (v = p, a, b, c) or EE (v = a0, a1, b0, b1).
struct ProxPair {
  Int4 v;                  ///< cloth vertex ids
  float w[4] = {0, 0, 0, 0};  ///< weights, sum 0
  Vec3f n;                 ///< unit normal, n . sum w_k x_k = distance > 0
  Vec3f sn;                ///< unit direction of the pair's spring in the solve (spring_direction), 0: none
  float overlap = 0;       ///< m, D - distance (> 0)
  float reach = 0;         ///< m, the proximity distance D of the pair
  float mu = 0;            ///< Coulomb coefficient of the pair
};

/// Vertex id of the pair's corner k (0..3).
CB_HD CB_INLINE int32_t pair_vertex(const ProxPair& q, int k) {
  return k == 0 ? q.v.a : (k == 1 ? q.v.b : (k == 2 ? q.v.c : q.v.d));
}

/// sum_k w_k u(v_k) over the pair's four vertices, u(v) the vector of vertex v
/// (in this order: the sums of pair_sum and of the springs' shares are the same
/// float sums).
template <class U>
CB_HD inline Vec3f pair_sum_of(const ProxPair& q, U u) {
  return u(q.v.a) * q.w[0] + u(q.v.b) * q.w[1] + u(q.v.c) * q.w[2] + u(q.v.d) * q.w[3];
}

/// sum_k w_k u_k over the pair's four vertices (u: (nverts) per-vertex vectors):
/// the relative velocity of its features for velocities, their gap vector for
/// positions.
CB_HD inline Vec3f pair_sum(const ProxPair& q, const Vec3f* u) {
  return pair_sum_of(q, [u](int v) { return u[v]; });
}

/// sum_k w_k^2 / m_k (1/kg; inv_mass: (nverts), 0 at pins): the pair's inverse
/// mass along a change of its relative velocity.
CB_HD inline float pair_inverse_mass(const ProxPair& q, const float* inv_mass) {
  return q.w[0] * q.w[0] * inv_mass[q.v.a] + q.w[1] * q.w[1] * inv_mass[q.v.b] + q.w[2] * q.w[2] * inv_mass[q.v.c] +
         q.w[3] * q.w[3] * inv_mass[q.v.d];
}

/// One spring entry's share w t of its pair's row part (N/m times p's unit),
/// padded to 16 bytes: written and read in one access each.
struct alignas(16) SpringShare {
  Vec3f t;
  float pad = 0.f;
};

/// The proximity pairs as springs of the implicit system (Tang et al. 2018,
/// Sec. 3: repulsion forces and their stiffness in the solve): pair p resists
/// the change of its gap sn . sum_k w_k x_k along its spring direction
/// ProxPair::sn with stiffness k[p] (N/m, 0 = not in the solve); vertex i's
/// incidence entries (4 p + corner) are entry[off[i] .. off[i + 1]). Null
/// pointers: no pair springs.
struct PairSprings {
  const ProxPair* pairs = nullptr;
  const float* k = nullptr;
  const float* c = nullptr;  ///< (npairs) N s/m, friction as a drag across sn (0: none yet)
  const uint32_t* off = nullptr;
  const uint32_t* entry = nullptr;
  const uint32_t* list = nullptr;  ///< (count) the pairs with a spring when it was made (a superset later)
  uint32_t count = 0;
  /// (4 npairs) slot[4 p + k]: the position in entry[] of listed pair p's corner k
  const uint32_t* slot = nullptr;
  /// (entries) N/m times p's unit: entry e's share w t of its pair's row part t
  /// (spring_pair_product) for the p of the last prepare_system_rows call
  /// (system_kernels.h) or PCG direction (cg.cu), written per pair through slot
  /// (write_spring_shares); prox_row sums a vertex's run
  SpringShare* t = nullptr;
};

/// The gap a spring of a pair ahead (farther than D at the start of the step)
/// may close within the step before it pushes: (distance - D) along sn (m, 0
/// for a pair within D).
CB_HD inline float spring_allowance(const ProxPair& q) {
  return q.overlap < 0.f ? -q.overlap * fabsf(dot(q.n, q.sn)) : 0.f;
}

/// The normal impulse (N s) of pair q's spring of stiffness k (N/m) over a step
/// h (s) whose solved velocities change its gap at gn = sn . sum_k w_k v_k (m/s):
/// lambda_n = -h k (h gn + a), a = spring_allowance(q) (the pull of its rest
/// length D for a pair ahead). Positive: it pushes.
CB_HD inline float spring_normal_impulse(const ProxPair& q, float k, float gn, float h) {
  return -h * h * k * gn - h * k * spring_allowance(q);
}

/// The incidence of the pairs ids[0..n) of `pairs` (ids ascending; backend
/// memory): entries 4 ids[j] + k (pair, corner) with their vertex, sorted by
/// vertex (stable: within a vertex by entry), so a vertex's run lists its pairs
/// in the order of the pair list. vert, entry: (4 n).
void sorted_incidence(const Context& ctx, const ProxPair* pairs, const uint32_t* ids, size_t n, uint32_t* vert,
                      uint32_t* entry);

/// Settings of the filter.
struct RepulsionSettings {
  float scale = 1.25f; ///< proximity distance D = scale * thickness (per pair, the largest of its vertices)
  float ahead = 0.f;   ///< pairs up to D + ahead * thickness apart get springs that let them close to D
  float rate = 0.1f;   ///< fraction of the overlap pushed out per step (Bridson's 0.1)
  int passes = 32;     ///< max Jacobi passes over the pairs (stops once every pair is met)
  bool rest_limit = false;  ///< pairs of one piece closer than D at rest: D lowered to 0.9 x their rest distance
};

/// Backend-side state of the filter passes since the last find() (read by
/// ClothRepulsion::progress()).
struct RepulsionPassState {
  int done = 0, calls = 0, passes = 0;
  double first_unmet = 0, last_unmet = 0;  ///< unmet pairs of the first / last pass
};

class ClothRepulsion {
 public:
  /// Remembers the cloth features (model triangles and topology).
  void set_cloth(const Context& ctx, size_t nverts, const std::vector<Int3>& tris, const Topology& topo);
  /// The rest shape (nverts positions, m) and each vertex's piece, for
  /// RepulsionSettings::rest_limit: a pair of one piece already closer than the
  /// proximity distance D at rest is held apart by the membrane, so its D is
  /// lowered to 0.9 times its rest distance (only a pair squeezed below that is
  /// pushed). Without a rest shape, or with rest_limit off, every pair uses D,
  /// but in the pieces set_limited_pieces names.
  void set_rest(const Context& ctx, const std::vector<Vec3f>& rest, const std::vector<uint32_t>& piece);
  /// (pieces) nonzero: that piece's pairs take the rest limit whatever
  /// RepulsionSettings::rest_limit says (a piece thicker than its edges, or
  /// whose material keeps its rest gaps).
  void set_limited_pieces(const Context& ctx, const std::vector<uint8_t>& limited);
  /// Finds the pairs closer than D at positions x (nverts, backend memory);
  /// thickness, friction: (nverts) m, - ; max_thickness: m, their maximum.
  /// Returns the number of pairs; also counts the broad-phase candidates.
  size_t find(const Context& ctx, const Vec3f* x, const float* thickness, const float* friction, float max_thickness,
              const RepulsionSettings& s);
  /// One filter pass over the pairs of the last find(), launched without a host
  /// read-back: changes v (nverts, m/s) of free vertices (inv_mass != 0); h: s,
  /// step. A pass counts the pairs whose relative normal velocity, before it,
  /// missed the target by more than 0.01 D / h; when none did, the filter has
  /// converged and later passes (until the next find) do nothing.
  void launch_pass(const Context& ctx, Vec3f* v, const float* inv_mass, float h, const RepulsionSettings& s);
  /// Where the passes launched since the last find() stand (one read-back).
  struct Progress {
    bool converged = false;  ///< a pass found every pair met
    int passes = 0;          ///< passes that found unmet pairs
    size_t first_unmet = 0;  ///< unmet pairs in the first pass
    size_t last_unmet = 0;   ///< ... in the last pass that ran
  };
  Progress progress() const;
  /// launch_pass, then the unmet count of that pass (0: converged).
  size_t apply_pass(const Context& ctx, Vec3f* v, const float* inv_mass, float h, const RepulsionSettings& s) {
    launch_pass(ctx, v, inv_mass, h, s);
    return progress().last_unmet;
  }
  /// Springs for the pairs of the last find() that have a spring direction sn
  /// and are closing or at rest along it at velocities v (sn . sum_k w_k v_k <= 0):
  /// k = gamma / (h^2 sum_k w_k^2 / (sn . B_k sn)), B_k (kg) A's diagonal block at
  /// vertex k without contacts (B: (nverts), system_diagonal_blocks), so the gap
  /// changes about 1 / (1 + gamma) of what it would. Along sn, not a scalar size
  /// of B: a flat membrane's in-plane stiffness (thousands of times its mass on a
  /// fine stiff cloth) does not resist a motion across it, and a spring scaled to
  /// it locks the sheet's sliding through the smallest lean of sn.
  /// Their Coulomb friction is a drag in the solve (lag_friction).
  /// A pair ahead (farther than D, spring_allowance a > 0) gets a spring only
  /// when v closes its gap past D within the step (h sn . g <= -a), and its rest
  /// length is D: the gap may close by a before it pushes, and the pull -k a
  /// w_k sn at the start of the step goes on the right-hand side
  /// (allowance_rhs). A sheet falling onto another from beyond D in one step
  /// is then stopped by the solve, where the membrane carries the deceleration
  /// to its neighbours, instead of by the impact zones after it, which move the
  /// colliding vertices alone (RESULTS.md, thirteenth session).
  /// The incidence it returns (PairSprings::off / entry) lists the pairs with a
  /// spring only: the proximity pairs without one (most of them in a stack)
  /// never enter the product.
  PairSprings springs(const Context& ctx, const Vec3f* v, const M3* B, const float* inv_mass, float h, float gamma);
  /// Contact pushes and never pulls: after a solve with velocities v (m/s),
  /// the springs whose gap opens (sn . sum_k w_k v_k > 0: stretched, they pull
  /// the features together; for a pair ahead, h sn . g > -a: the gap ends
  /// beyond D) are taken out (k = 0), and the pulls of released pairs ahead
  /// leave rhs (kg m/s; inv_mass 1/kg, h s). *count (backend memory, not read
  /// back: the round reads its counts at once) = how many; the solve
  /// is then repeated without them (an active set; Baraff & Witkin 1998, Sec.
  /// 5.3, release a constraint that pulls). Where redundant springs share a
  /// load, the solve makes some of them pull against the others; their pull
  /// would also feed the friction (lag_friction) a normal force that is not there.
  void release_pulling_springs(const Context& ctx, const Vec3f* v, float h, const float* inv_mass, Vec3f* rhs,
                               double* count);
  /// rhs += sign * h f0 of the springs of pairs ahead (their pull -k a w_k sn
  /// at the start of the step; all springs, or those flagged as released).
  void allowance_rhs(const Context& ctx, float h, const float* inv_mass, float sign, bool released_only, Vec3f* rhs);
  /// Coulomb friction of the springs in the next solve, lagged from the last
  /// one (velocities v, m/s; inv_mass (nverts) 1/kg): a drag c across sn with
  /// impulse h c |g_t| on the pair's tangential relative velocity g_t. From the
  /// spring's normal impulse lambda_n = -h k (h sn . g + a) (N s) and the pair's
  /// inverse mass s = sum_k w_k^2 / m_k: without the last drag the pair would
  /// slide at |g_t| (1 + h c s); Coulomb takes up to mu lambda_n s of that, and
  /// c = mu lambda_n / (h max(what is left, eps)) gives the impulse mu lambda_n
  /// at the speed left, and holds the pair (c large) when nothing is left
  /// (eps: 0.1 % of its reach per step). Plain lagging, c = mu lambda_n / (h
  /// |g_t|), is the IPC papers' lagged friction; it creeps towards rest by a
  /// constant factor per solve (3 mm/s on a sheet that should hold, after three).
  /// A pair that had a drag gets the geometric mean of the old and the new one:
  /// "what is left" is estimated with the pair's own inverse mass s, while the
  /// membrane carries most of a drag's impulse, so a held pair's slide was
  /// overestimated, its next drag too weak, the one after that too strong, from
  /// round to round (after an odd number of rounds the funnel's pair friction
  /// was 5-7 times Coulomb's bound mu lambda_n, after an even number 0.7-0.9
  /// times; damped, 1.5 after three rounds: RESULTS.md, eleventh session).
  /// *count (backend memory, not read back) = the number of pairs with a drag.
  /// (The filter's passes after the solve add friction only from their own
  /// impulses.)
  void lag_friction(const Context& ctx, const Vec3f* v, const float* inv_mass, float h, double* count);
  /// Coulomb's law checked on the springs' friction of the solve that gave the
  /// velocities v (m/s): each drag applied the impulse h c |g_t| (N s) on its
  /// pair, and Coulomb allows mu lambda_n with the spring's normal impulse
  /// lambda_n = max(-h k (h sn . g + a), 0) of the same solve. The drags are lagged
  /// from the solve before, so the two agree only as far as the rounds have
  /// converged (solver.cpp).
  struct FrictionCheck {
    double impulse = 0;  ///< N s, sum of the drags' impulses
    double bound = 0;    ///< N s, sum of Coulomb's bounds mu lambda_n over the springs
    double beyond = 0;   ///< N s, sum of the impulses' excess over their bounds
  };
  FrictionCheck check_friction(const Context& ctx, const Vec3f* v, float h);
  /// The pairs of the last find() (host copy, for tests and debug drawing).
  std::vector<ProxPair> pairs() const { return pairs_.to_host(); }
  size_t num_pairs() const { return pairs_.size(); }
  /// Pairs of the last find() that overlap: the only ones a filter pass reads.
  size_t num_filter_pairs() const { return nfilter_; }
  size_t candidates() const { return candidates_; }
  /// Springs made by the last springs() call (k > 0).
  size_t num_springs() const { return num_springs_; }
  size_t device_bytes() const;

 private:
  /// spring_list_: the pairs with k != 0; spring_entry_ / spring_vert_ /
  /// spring_off_ / spring_slot_: their incidence entries, sorted by vertex
  void list_springs(const Context& ctx);
  /// filter_pairs_: the pairs that overlap, the only ones a filter pass can
  /// push; filter_entry_ / filter_vert_: their incidence entries, sorted by
  /// vertex; run_vert_ ... chunk_start_: the runs and chunks of those
  void list_filter_pairs(const Context& ctx);
  CcdTopology topo_;
  CcdCandidates cand_;
  DeviceBuffer<Vec3f> rest_;       ///< (nverts) m, rest positions (empty: no rest filter)
  DeviceBuffer<uint32_t> piece_;   ///< (nverts) piece of each vertex
  DeviceBuffer<uint8_t> limited_;  ///< (pieces) set_limited_pieces
  bool any_limited_ = false;
  DeviceBuffer<Int3> across_;      ///< (ntris) the vertex across each edge, -1: none (set_cloth)
  DeviceBuffer<ProxPair> all_, pairs_;
  DeviceBuffer<uint32_t> flags_, keep_;
  DeviceBuffer<uint32_t> filter_pairs_, filter_entry_, filter_vert_;  ///< list_filter_pairs
  DeviceBuffer<uint32_t> run_vert_, run_start_;     ///< the filter's runs, one per vertex
  DeviceBuffer<uint32_t> chunk_off_, chunk_start_;  ///< runs cut into chunks (repulsion.cu, Runs)
  size_t nfilter_ = 0, nruns_ = 0, nchunks_ = 0, candidates_ = 0, num_springs_ = 0;
  /// the incidence entries of the pairs with a spring, in the same order, and
  /// each vertex's range of them (nverts + 1): PairSprings::off / entry
  DeviceBuffer<uint32_t> spring_entry_, spring_vert_, spring_off_;
  DeviceBuffer<uint32_t> spring_list_;   ///< (npairs, spring_count_ used) the pairs with k != 0 (PairSprings::list)
  size_t spring_count_ = 0;
  DeviceBuffer<uint32_t> spring_slot_;   ///< (4 npairs) PairSprings::slot
  DeviceBuffer<SpringShare> spring_t_;   ///< (spring entries) PairSprings::t
  DeviceBuffer<float> spring_k_;     ///< (npairs) N/m (springs())
  DeviceBuffer<float> spring_c_;     ///< (npairs) N s/m (lag_friction())
  /// (npairs) per-pair flags (1/0) of the last round's call, written and read
  /// for the listed pairs only
  DeviceBuffer<float> spring_scratch_;
  DeviceBuffer<double> friction_sums_;  ///< (3) N s, check_friction()'s sums
  RowsSumScratch friction_sum_;         ///< check_friction()'s launches
  /// *count (backend memory) = how many listed pairs the last round's call
  /// flagged in spring_scratch_.
  void flagged_pairs(const Context& ctx, double* count);
  RowsSumScratch flag_sum_;          ///< flagged_pairs()'s launch
  bool springs_on_ = false;          ///< springs() was called since the last find()
  DeviceBuffer<Vec3f> dv_;         ///< (4 npairs) velocity change per pair corner (the filter's pairs only)
  DeviceBuffer<uint32_t> active_;  ///< (npairs) the pair needed an impulse in this pass
  DeviceBuffer<uint32_t> count_;   ///< (nverts) active pairs per vertex (valid for vertices in pairs)
  DeviceBuffer<float> div_;        ///< (npairs) divisor of each pair's impulses, 0 = inactive
  DeviceBuffer<uint32_t> chunk_count_;  ///< (nchunks) active entries per chunk
  DeviceBuffer<Vec3f> chunk_sum_;  ///< (nchunks) m/s, velocity change per chunk
  DeviceBuffer<RepulsionPassState> state_;  ///< (1)
  RowsSumScratch unmet_sum_;       ///< the fused pass-and-count launch
};

}  // namespace cb::icloth
