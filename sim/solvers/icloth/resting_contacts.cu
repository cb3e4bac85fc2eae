// Resting obstacle contacts inside the implicit solve (see resting_contacts.h).
#include "sim/solvers/icloth/resting_contacts.h"

#include "sim/core/parallel.h"
#include "sim/solvers/icloth/obstacle_kernels.h"

namespace cb::icloth {

void find_resting_contacts(const Context& ctx, const ObstacleContact* mesh, const Shape* start, const Shape* end,
                           int nshapes, const SystemView& A, const Vec3f* x, const Vec3f* v,
                           const float* thickness, const uint8_t* stuck, float reach, float gamma, RestingContact* rc,
                           M3* E) {
  const SystemView a = A;
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) {
    RestingContact c;
    E[i] = M3{};
    const float limit = reach * thickness[i];
    float best = limit;  // the closest obstacle within reach
    if (a.inv_mass[i] != 0.f) {
      if (mesh && mesh[i].tri >= 0) {
        const ObstacleContact& m = mesh[i];
        const float d = dot(x[i] - m.point, m.normal);
        if (d < best && (stuck[i] || dot(v[i] - m.velocity, m.normal) <= 0.f)) {
          best = d;
          c.normal = m.normal, c.velocity = m.velocity, c.friction = m.friction, c.k = 1.f;
        }
      }
      for (int s = 0; s < nshapes; ++s) {
        Vec3f nrm;
        const float d = shape_distance(start[s], x[i], &nrm);
        if (!(d < best)) continue;
        const Vec3f vo = shape_point_velocity(end[s], start[s], x[i], a.h);
        if (!stuck[i] && dot(v[i] - vo, nrm) > 0.f) continue;  // moving away: released
        best = d;
        c.normal = nrm, c.velocity = vo, c.friction = end[s].friction, c.k = 1.f;
      }
    }
    if (c.k > 0.f) {
      c.k = gamma * scalar_diagonal(a, i) / (a.h * a.h);
      c.stick = stuck[i] ? 1 : 0;
      if (c.stick)
        E[i] = M3::identity(c.k);
      else
        add_outer(E[i], c.k, c.normal, c.normal);
    }
    rc[i] = c;
  });
}

void add_resting_rhs(const Context& ctx, const RestingContact* rc, int n, float h, Vec3f* rhs) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const RestingContact c = rc[i];
    if (!(c.k > 0.f)) return;
    const Vec3f vo = c.stick ? c.velocity : c.normal * dot(c.normal, c.velocity);
    rhs[i] += vo * (h * h * c.k);
  });
}

void resting_friction(const Context& ctx, const RestingContact* rc, const float* mass, int n, float h, Vec3f* v,
                      uint8_t* stuck) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const RestingContact c = rc[i];
    stuck[i] = 0;
    if (!(c.k > 0.f) || !(c.friction > 0.f)) return;
    const Vec3f vrel = v[i] - c.velocity;
    const float vn = dot(vrel, c.normal);
    const float s = h * h * c.k / mass[i];  // the spring's impulse per unit mass and unit velocity (dimensionless)
    const float bound = c.friction * fmaxf(0.f, -s * vn);  // mu dv_n, m/s
    const Vec3f vt = vrel - c.normal * vn;
    const float lt = length(vt);
    if (c.stick) {
      // held by the spring: stays held while the spring pushes (v_n <= 0) and
      // its tangential impulse s |v_t| is within the bound
      stuck[i] = vn <= 0.f && s * lt <= bound ? 1 : 0;
      return;
    }
    if (lt <= bound) {  // friction would stop it: the next solve holds it (stopping it here tears the cloth)
      stuck[i] = 1;
      return;
    }
    v[i] = respond(v[i], c.velocity, c.normal, 0.f, bound);  // kinetic friction only
  });
}

}  // namespace cb::icloth
