// Resting obstacle contacts inside the implicit solve (see resting_contacts.h).
#include "sim/solvers/icloth/resting_contacts.h"

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"
#include "sim/core/rows_sum.h"

namespace cb::icloth {
namespace {

// A resting vertex leaves its obstacle when it moves away by more than this
// fraction of its thickness in a step. At 0 (any outward speed), a sheet resting
// on a slope lost its contact every other step: the filter had pushed it out to
// the thickness by a hair, and its kinetic friction, carried to the next step,
// never met a contact (348 mm slid where Coulomb says 304).
constexpr float kLeaveFraction = 1e-3f;

// Stiffness of an overtaken vertex's spring relative to a resting one's (gamma):
// a vertex the moving surface swept past by more than the reach (found through
// the obstacles' displacement, solver.cpp). At 0.03 (gamma 3 for the default
// 100) the solve draws it 3/4 of the way out, together with its neighbours, and
// the filter after the solve does the rest. At full stiffness the impulse that
// draws a whole band of overtaken vertices out in one step went through the
// membrane at once: a free sheet hit at its edge by a plate at 1-3 m/s spun
// (strain 0.31 mean, 2.6 largest over 20 starts, against 0.06 / 0.13 without
// overtaken contacts; 0.15 / 0.41 at 0.1, 0.10 / 0.19 at 0.03). RESULTS.md,
// fourteenth session.
constexpr float kOvertakenStiffness = 0.03f;

// The velocity a mesh contact's spring draws the vertex to (m/s): the surface's,
// but along the normal no faster than what ends the step at the thickness from
// the end-of-step surface, (thickness - d) / h with d the start position's signed
// distance to it. The contacts are found within reach of the end-of-step
// surface, so a vertex up to h v_n further from the start-of-step surface is
// among them; drawn at the surface's full speed it ended the step that much
// ahead of it, while its neighbours stayed (a rising thigh 9 mm a step into a
// skirt: edges +170 % in one step). A vertex resting within its thickness moves
// with the surface as before. ObstacleContact::point is on the end-of-frame
// surface: with sub-steps the bound is looser than this, never faster than the
// surface. An overtaken vertex (behind the end-of-step surface by more than the
// reach) is drawn to exactly (thickness - d) / h, faster than the surface moves
// along its normal if need be: on the flank of a rising tube the surface moves
// along itself (v_n ~ 0), and the capped target held such a vertex inside the
// tube, for the filter to push it out alone (strain 2.9, RESULTS.md, fourteenth
// session).
CB_HD inline Vec3f mesh_target(const ObstacleContact& m, float d, float thickness, float h, bool overtaken) {
  const float vn = dot(m.velocity, m.normal);
  const float un = overtaken ? (thickness - d) / h : fminf(vn, fmaxf(0.f, (thickness - d) / h));
  return m.velocity + m.normal * (un - vn);
}

// E of a resting contact (N/m): the normal spring, or the full hold when stuck
CB_HD inline M3 resting_block(const RestingContact& c) {
  if (c.stick) return M3::identity(c.k);
  M3 e{};
  add_outer(e, c.k, c.normal, c.normal);
  return e;
}

// the contact's share of the right-hand side (kg m/s): h^2 E v_obstacle (the
// springs follow the moving surface) plus the kinetic friction impulse
CB_HD inline Vec3f resting_rhs(const RestingContact& c, float h) {
  const Vec3f vo = c.stick ? c.velocity : c.normal * dot(c.normal, c.velocity);
  return vo * (h * h * c.k) + c.impulse;
}

// A contact's velocity relative to the obstacle after a solve (m/s), split along
// its normal (< 0: pressed into the spring) and across it.
struct Relative {
  float vn;
  Vec3f vt;
};

CB_HD inline Relative relative(const RestingContact& c, Vec3f v) {
  const Vec3f vrel = v - c.velocity;
  const float vn = dot(vrel, c.normal);
  return {vn, vrel - c.normal * vn};
}

// The contact's impulse on free vertex i over the step (kg m/s), read from the
// row of the system without the contact: (A - h^2 E) v - (rhs - its share).
// A_free: the system with extra = nullptr. Unlike h^2 k (v_o - v), which
// multiplies the solve's residual velocity by a stiffness 100 times the
// vertex's diagonal, it does not amplify the PCG's error.
CB_HD inline Vec3f contact_impulse(const SystemView& A_free, const Vec3f* v, const Vec3f* rhs,
                                   const RestingContact& c, int i) {
  return system_row(A_free, v, i) - (rhs[i] - resting_rhs(c, A_free.h));
}

// A without the resting contacts' springs (contact_impulse's A_free).
SystemView without_contacts(SystemView A) {
  A.extra = nullptr;
  return A;
}

}  // namespace

void find_resting_contacts(const Context& ctx, const ObstacleContact* mesh, const Shape* start, const Shape* end,
                           int nshapes, const SystemView& A, const Vec3f* x, const Vec3f* v,
                           const float* thickness, const uint8_t* stuck, const Vec3f* carried, float reach,
                           float gamma, RestingContact* rc, M3* E) {
  const SystemView a = A;
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) {
    RestingContact c;
    E[i] = M3{};
    const float limit = reach * thickness[i];
    const float leave = kLeaveFraction * thickness[i] / a.h;  // m/s: moving away faster releases the contact
    float best = limit;  // the closest obstacle within reach
    bool overtaken = false;  // the closest is a mesh the step's motion swept past the vertex
    if (a.inv_mass[i] != 0.f) {
      if (mesh && mesh[i].tri >= 0) {
        const ObstacleContact& m = mesh[i];
        const float d = dot(x[i] - m.point, m.normal);  // to the end-of-step surface
        // beside the surface by less than the reach: found beyond the reach (an
        // overtaken vertex, solver.cpp), a point off a border of an open mesh (the
        // mannequin's) would have d ~ 0 and rest on its plane's extension
        const float lateral = length(x[i] - m.point - m.normal * d);
        if (d < best && lateral < limit && (stuck[i] == kHeld || dot(v[i] - m.velocity, m.normal) <= leave)) {
          best = d;
          overtaken = d < -limit;
          c.normal = m.normal, c.velocity = mesh_target(m, d, thickness[i], a.h, overtaken), c.friction = m.friction;
          c.k = overtaken ? kOvertakenStiffness : 1.f;  // scales gamma below
        }
      }
      for (int s = 0; s < nshapes; ++s) {
        Vec3f nrm;
        const float d = shape_distance(start[s], x[i], &nrm);
        if (!(d < best)) continue;
        const Vec3f vo = shape_point_velocity(end[s], start[s], x[i], a.h);
        if (stuck[i] != kHeld && dot(v[i] - vo, nrm) > leave) continue;  // moving away: released
        best = d;
        c.normal = nrm, c.velocity = vo, c.friction = end[s].friction, c.k = 1.f;
        overtaken = false;
      }
    }
    if (c.k > 0.f) {
      c.diag = scalar_diagonal(a, i);
      c.k *= gamma * c.diag / (a.h * a.h);
      c.stick = stuck[i] == kHeld ? 1 : 0;
      const float approach = fmaxf(0.f, -dot(v[i] - c.velocity, c.normal));  // m/s
      c.approach = a.mass[i] * approach;
      E[i] = resting_block(c);
      if (!c.stick && c.friction > 0.f) {
        // a resting contact that is new, or whose friction would have stopped it
        // alone, gets its friction within the step (fresh); the others, the last
        // step's kinetic friction, in this step's tangent plane
        const bool unknown = (stuck[i] == kFree && dot(carried[i], carried[i]) == 0.f) || stuck[i] == kCapped;
        c.fresh = unknown && !overtaken && approach <= leave ? 1 : 0;
        if (!c.fresh) c.impulse = carried[i] - c.normal * dot(c.normal, carried[i]);
      }
    }
    rc[i] = c;
  });
}

void add_resting_rhs(const Context& ctx, const RestingContact* rc, int n, float h, Vec3f* rhs) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const RestingContact c = rc[i];
    if (!(c.k > 0.f)) return;
    rhs[i] += resting_rhs(c, h);
  });
}

void update_resting_friction(const Context& ctx, const SystemView& A, RestingContact* rc, int n, const Vec3f* v,
                             float tol, M3* E, Vec3f* rhs, double* count, RowsSumScratch& scratch) {
  const float h = A.h;
  const SystemView A_free = without_contacts(A);
  prepare_system_rows(ctx, A_free, v);  // contact_impulse's rows
  const auto row = [=] CB_HD(int i) -> float {  // 1: contact i changed and asks for a re-solve
    RestingContact c = rc[i];
    if (!(c.k > 0.f)) return 0.f;
    const Relative r = relative(c, v[i]);
    const float hk = h * h * c.k;  // kg/s: the spring's impulse per m/s
    const float slack = tol * c.diag;  // kg m/s: changes the vertex's velocity by tol, alone
    const Vec3f before = resting_rhs(c, h);
    bool resolve = true;  // the change asks for a re-solve
    if (hk * r.vn > slack) {  // the spring pulls the vertex onto the obstacle: let go
      c = RestingContact{};
    } else if (c.fresh) {  // its first friction, from this solve's normal impulse
      c.fresh = 0;
      rc[i].fresh = 0;
      const float ln = dot(contact_impulse(A_free, v, rhs, c, i), c.normal);
      const float lt = length(r.vt), bound = fmaxf(0.f, c.friction * (ln - c.approach));
      if (bound <= tol * A_free.mass[i]) return 0.f;  // friction under tol m/s alone: not worth a re-solve
      resolve = lt > tol;  // at rest on it already: held from now on, no re-solve
      if (!resolve || A_free.mass[i] * lt <= bound)
        c.stick = 1;  // static friction stops it alone: held (the next rounds check for a slip)
      else
        c.impulse = r.vt * (-bound / lt);  // Coulomb's kinetic friction against the slip
    } else {
      if (!c.stick || !(c.friction > 0.f)) return 0.f;
      const float lt = length(r.vt), bound = c.friction * hk * fmaxf(0.f, -r.vn);
      if (hk * lt - bound <= slack) return 0.f;  // static friction holds, or nearly
      c.stick = 0, c.released = 1;
      c.impulse = r.vt * (-bound / lt);  // Coulomb's kinetic friction against the slip
    }
    E[i] = resting_block(c);
    rhs[i] += resting_rhs(c, h) - before;
    rc[i] = c;
    return resolve ? 1.f : 0.f;
  };
  rows_sum(ctx, n, row, [=] CB_HD(double changed) { *count = changed; }, scratch);
}

void finish_resting_friction(const Context& ctx, const SystemView& A, const RestingContact* rc, int n,
                             const Vec3f* v, const Vec3f* rhs, uint8_t* stuck, Vec3f* carried) {
  const SystemView a = without_contacts(A);
  prepare_system_rows(ctx, a, v);  // contact_impulse's rows
  const float* mass = a.mass;  // kg
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const RestingContact c = rc[i];
    stuck[i] = kFree;
    carried[i] = Vec3f{0, 0, 0};
    if (!(c.k > 0.f) || !(c.friction > 0.f)) return;
    const Vec3f lambda = contact_impulse(a, v, rhs, c, i);
    const float ln = dot(lambda, c.normal);
    // Coulomb's bound for the next step (kg m/s): mu J_n less the approach speed
    // the contact absorbed, an impact that does not recur (a corner landing on
    // the funnel at 2 m/s is not held by it in the steps after)
    const float bound = fmaxf(0.f, c.friction * (ln - c.approach));
    if (c.stick) {  // held: stays held while the contact pushes and its tangential impulse is within the bound
      stuck[i] = ln >= 0.f && length(lambda - c.normal * ln) <= bound ? kHeld : kGaveWay;
      return;
    }
    const Relative r = relative(c, v[i]);
    const Vec3f free = r.vt - c.impulse * (1.f / mass[i]);  // without this step's friction
    if (!c.released && mass[i] * length(free) <= bound) {  // friction stops it: held from the next step on
      stuck[i] = kHeld;
      return;
    }
    const float lt = length(r.vt);  // the next step's kinetic friction opposes the motion left
    if (lt > 0.f) carried[i] = r.vt * (-fminf(bound, mass[i] * lt) / lt);  // at most what stops it alone
    if (mass[i] * lt <= bound) stuck[i] = kCapped;  // then a resting contact decides within the step
  });
}

size_t count_resting_contacts(const Context& ctx, const RestingContact* rc, int n, float* scratch) {
  parallel_for(ctx, n, [=] CB_HD(int i) { scratch[i] = rc[i].k > 0.f ? 1.f : 0.f; });
  return size_t(reduce_sum(ctx, scratch, size_t(n)));
}

}  // namespace cb::icloth
