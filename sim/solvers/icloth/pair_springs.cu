// Proximity springs of I-Cloth's cloth-cloth pairs (ClothRepulsion's springs
// in the implicit solve, repulsion.h): which pairs get one, their incidence for
// the product, the rounds that release pulling springs and lag their Coulomb
// friction, and the check of that friction against Coulomb's bound. The pairs
// themselves and the velocity filter: repulsion.cu.
#include "sim/solvers/icloth/repulsion.h"

#include <cmath>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb::icloth {
namespace {

// Below this fraction of its reach per step, a pair's tangential speed counts
// as at rest in the lagged friction's drag (lag_friction).
constexpr float kStaticSpeed = 0.001f;

// slot[entry[e]] = e: where each listed pair's corner entry sits (PairSprings::slot)
void scatter_slots(const Context& ctx, const uint32_t* entry, size_t n, uint32_t* slot) {
  parallel_for(ctx, int(n), [=] CB_HD(int e) { slot[entry[e]] = uint32_t(e); });
}

// flag[p] = 1 where pair p has a spring (k != 0)
void flag_springs(const Context& ctx, const float* k, size_t n, uint32_t* flag) {
  parallel_for(ctx, int(n), [=] CB_HD(int p) { flag[p] = k[p] != 0.f ? 1u : 0u; });
}

// *count = how many of the listed pairs list[0..n) have flag[p] != 0 (flags
// 1 / 0; backend memory, not read back)
void count_listed_flags(const Context& ctx, const float* flag, const uint32_t* list, size_t n, double* count,
                        RowsSumScratch& scratch) {
  rows_sum(ctx, int(n), [=] CB_HD(int j) { return flag[list[j]]; }, [=] CB_HD(double s) { *count = s; }, scratch);
}

}  // namespace

PairSprings ClothRepulsion::springs(const Context& ctx, const Vec3f* v, const M3* B, const float* inv_mass, float h,
                                    float gamma) {
  const int np = int(pairs_.size());
  PairSprings ps;
  num_springs_ = 0;
  if (np == 0 || !(gamma > 0.f)) return ps;
  spring_k_.resize(ctx, size_t(np));
  spring_c_.resize(ctx, size_t(np));
  spring_scratch_.resize(ctx, size_t(np));
  const ProxPair* pairs = pairs_.data();
  float* k = spring_k_.data();
  float* fc = spring_c_.data();
  parallel_for(ctx, np, [=] CB_HD(int p) {
    const ProxPair q = pairs[p];
    k[p] = 0.f;
    fc[p] = 0.f;
    if (!(dot(q.sn, q.sn) > 0.f)) return;  // no spring direction: the filter alone
    const int id[4] = {q.v.a, q.v.b, q.v.c, q.v.d};
    float s = 0.f;  // the pair's inverse "mass" along sn in A (1/kg)
    for (int c = 0; c < 4; ++c)
      if (inv_mass[id[c]] != 0.f) s += q.w[c] * q.w[c] / dot(q.sn, B[id[c]] * q.sn);
    if (h * dot(pair_sum(q, v), q.sn) <= -spring_allowance(q) && s > 0.f) k[p] = gamma / (h * h * s);
  });
  springs_on_ = true;
  list_springs(ctx);
  num_springs_ = spring_count_;
  ps.pairs = pairs;
  ps.k = k;
  ps.c = fc;
  ps.off = spring_off_.data();
  ps.entry = spring_entry_.data();
  ps.list = spring_list_.data();
  ps.count = uint32_t(spring_count_);
  ps.slot = spring_slot_.data();
  spring_t_.resize(ctx, spring_entry_.size());
  ps.t = spring_t_.data();
  return ps;
}

// The product A p, A's diagonal blocks and the multigrid visit a vertex's
// spring entries every PCG iteration (allowance_rhs once a round). Only the
// pairs with a spring are listed: a pair without one (k = 0, and then c = 0)
// adds nothing (on the 58^2 funnel's stack 4-6k springs among 80-150k pairs).
// The entries are in the order of the incidence of every pair (by vertex, then
// by entry), so every sum over them is what it was over that list. Springs are
// only ever released within the step (k -> 0), never added, so the list stays
// a superset of the active ones.
void ClothRepulsion::list_springs(const Context& ctx) {
  const size_t np = pairs_.size();
  uint32_t* pair_flag = flags_.data();  // (candidates >= np) free after find()'s gather_pairs
  spring_list_.resize(ctx, np);
  flag_springs(ctx, spring_k_.data(), np, pair_flag);
  spring_count_ = compact_indices(ctx, pair_flag, spring_list_.data(), np);
  const size_t ns = 4 * spring_count_;
  spring_entry_.resize(ctx, ns);
  spring_vert_.resize(ctx, ns);
  sorted_incidence(ctx, pairs_.data(), spring_list_.data(), spring_count_, spring_vert_.data(), spring_entry_.data());
  spring_off_.resize(ctx, count_.size() + 1);
  key_starts(ctx, spring_vert_.data(), ns, uint32_t(count_.size()), spring_off_.data());
  spring_slot_.resize(ctx, 4 * np);  // the pairs themselves, for prepare_system_rows' one pass per pair
  scatter_slots(ctx, spring_entry_.data(), ns, spring_slot_.data());
}

void ClothRepulsion::release_pulling_springs(const Context& ctx, const Vec3f* v, float h, const float* inv_mass,
                                             Vec3f* rhs, double* count) {
  const ProxPair* pairs = pairs_.data();
  const uint32_t* list = spring_list_.data();  // a pair without a spring has nothing to release
  float* k = spring_k_.data();
  float* released = spring_scratch_.data();
  parallel_for(ctx, int(spring_count_), [=] CB_HD(int j) {
    const uint32_t p = list[j];
    const ProxPair q = pairs[p];
    const Vec3f g = pair_sum(q, v);
    const bool pulls = k[p] != 0.f && h * dot(g, q.sn) > -spring_allowance(q);
    released[p] = pulls ? 1.f : 0.f;
  });
  flagged_pairs(ctx, count);
  // without a read of the count: with none released both add nothing (rhs += -0)
  allowance_rhs(ctx, h, inv_mass, -1.f, true, rhs);  // the released springs' pull leaves the rhs
  parallel_for(ctx, int(spring_count_), [=] CB_HD(int j) {
    if (released[list[j]] != 0.f) k[list[j]] = 0.f;
  });
}

void ClothRepulsion::allowance_rhs(const Context& ctx, float h, const float* inv_mass, float sign, bool released_only,
                                   Vec3f* rhs) {
  if (!springs_on_ || pairs_.size() == 0) return;
  const ProxPair* pairs = pairs_.data();
  const float* k = spring_k_.data();
  const float* flag = spring_scratch_.data();
  const uint32_t* off = spring_off_.data();  // the pairs with a spring (list_springs)
  const uint32_t* entry = spring_entry_.data();
  parallel_for(ctx, int(count_.size()), [=] CB_HD(int i) {
    if (inv_mass[i] == 0.f) return;
    Vec3f acc{0, 0, 0};
    for (uint32_t e = off[i]; e < off[i + 1]; ++e) {
      const uint32_t p = entry[e] >> 2, c = entry[e] & 3u;
      if (released_only && flag[p] == 0.f) continue;
      const ProxPair q = pairs[p];
      const float a = spring_allowance(q);
      if (k[p] != 0.f && a > 0.f) acc += q.sn * (-h * k[p] * a * q.w[c]);
    }
    rhs[i] += acc * sign;
  });
}

void ClothRepulsion::lag_friction(const Context& ctx, const Vec3f* v, const float* inv_mass, float h,
                                  double* count) {
  const ProxPair* pairs = pairs_.data();
  const uint32_t* list = spring_list_.data();  // without a spring (k = 0): no normal impulse, no drag
  const float* k = spring_k_.data();
  float* fc = spring_c_.data();
  float* rubbing = spring_scratch_.data();
  parallel_for(ctx, int(spring_count_), [=] CB_HD(int j) {
    const uint32_t p = list[j];
    const ProxPair q = pairs[p];
    const Vec3f g = pair_sum(q, v);
    const float gn = dot(g, q.sn), lambda = spring_normal_impulse(q, k[p], gn, h);
    const float gt = length(g - q.sn * gn);
    const float s = pair_inverse_mass(q, inv_mass);
    const float free = gt + h * fc[p] * gt * s;  // without the last drag's impulse h c |g_t|
    const float slide = free - q.mu * lambda * s;  // what Coulomb leaves of it
    float c = lambda > 0.f ? q.mu * lambda / (h * fmaxf(slide, kStaticSpeed * q.reach / h)) : 0.f;
    if (fc[p] > 0.f && c > 0.f) c = sqrtf(fc[p] * c);  // damped: the undamped lag alternates held / sliding
    fc[p] = c;
    rubbing[p] = fc[p] > 0.f ? 1.f : 0.f;
  });
  flagged_pairs(ctx, count);
}

ClothRepulsion::FrictionCheck ClothRepulsion::check_friction(const Context& ctx, const Vec3f* v, float h) {
  FrictionCheck out;
  if (!springs_on_ || spring_count_ == 0) return out;
  friction_sums_.resize(ctx, 3);
  const ProxPair* pairs = pairs_.data();
  const uint32_t* list = spring_list_.data();  // the other pairs' terms are 0
  const float* k = spring_k_.data();
  const float* fc = spring_c_.data();
  double* sums = friction_sums_.data();
  // term 0: the drag's impulse h c |g_t|; 1: Coulomb's bound; 2: the excess
  auto term = [=] CB_HD(int j, int which) {
    const uint32_t p = list[j];
    const ProxPair q = pairs[p];
    const Vec3f g = pair_sum(q, v);
    const float gn = dot(g, q.sn);
    const float bound = q.mu * fmaxf(spring_normal_impulse(q, k[p], gn, h), 0.f);
    const float impulse = h * fc[p] * length(g - q.sn * gn);
    return which == 0 ? impulse : (which == 1 ? bound : fmaxf(impulse - bound, 0.f));
  };
  for (int which = 0; which < 3; ++which)  // three launches, one read-back
    rows_sum(ctx, int(spring_count_), [=] CB_HD(int j) { return term(j, which); },
             [=] CB_HD(double total) { sums[which] = total; }, friction_sum_);
  const std::vector<double> s = friction_sums_.to_host();
  out.impulse = s[0];
  out.bound = s[1];
  out.beyond = s[2];
  return out;
}

void ClothRepulsion::flagged_pairs(const Context& ctx, double* count) {
  count_listed_flags(ctx, spring_scratch_.data(), spring_list_.data(), spring_count_, count, flag_sum_);
}

}  // namespace cb::icloth
