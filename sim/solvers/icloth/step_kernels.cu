// Per-vertex kernels of one I-Cloth step (see step_kernels.h).
#include "sim/solvers/icloth/step_kernels.h"

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"
#include "sim/model/step_velocity.h"

namespace cb::icloth {

void add_external_forces(const Context& ctx, const VertexData& vd, const Vec3f* x, const Vec3f* v, int n,
                         const Environment& env, float time, const Grab& grab, float grab_k, Vec3f* f) {
  const Vec3f g = env.gravity;
  const Wind wind = env.wind;
  const float drag = env.air_drag;
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (vd.inv_mass[i] == 0.f) {
      f[i] = Vec3f{};
      return;
    }
    Vec3f fi = f[i] + g * vd.mass[i];
    if (drag > 0.f) {
      Vec3f vr = v[i] - wind_velocity(wind, x[i], time);
      fi -= vr * (drag * vd.area[i] * length(vr));
    }
    if (grab.active) {
      float b = (grab.verts.a == i ? grab.bary.x : 0.f) + (grab.verts.b == i ? grab.bary.y : 0.f) +
                (grab.verts.c == i ? grab.bary.z : 0.f);
      if (b != 0.f) {
        Vec3f p = x[grab.verts.a] * grab.bary.x + x[grab.verts.b] * grab.bary.y + x[grab.verts.c] * grab.bary.z;
        fi -= (p - grab.target) * (grab_k * b);
      }
    }
    f[i] = fi;
  });
}

void implicit_rhs(const Context& ctx, const float* mass, const Vec3f* v, const Vec3f* f, int n, float h, Vec3f* rhs) {
  parallel_for(ctx, n, [=] CB_HD(int i) { rhs[i] = v[i] * mass[i] + f[i] * h; });
}

void predict_positions(const Context& ctx, const Vec3f* x, Vec3f* v, const float* w, int n, float h, Vec3f* x_new) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (w[i] == 0.f) {
      v[i] = Vec3f{};
      x_new[i] = x[i];
      return;
    }
    x_new[i] = x[i] + v[i] * h;
  });
}

void velocity_change(const Context& ctx, const Vec3f* v0, const Vec3f* v1, int n, Vec3f* dv) {
  parallel_for(ctx, n, [=] CB_HD(int i) { dv[i] = v1[i] - v0[i]; });
}

void commit_positions(const Context& ctx, Vec3f* x, Vec3f* v, const Vec3f* x_new, const Vec3f* v_pred, const float* w,
                      int n, float h) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (w[i] == 0.f) return;
    v[i] = step_velocity(x[i], x_new[i], v_pred[i], h);
    x[i] = x_new[i];
  });
}

float max_speed(const Context& ctx, const Vec3f* v, int n, float* scratch) {
  parallel_for(ctx, n, [=] CB_HD(int i) { scratch[i] = length(v[i]); });
  return n > 0 ? reduce_max(ctx, scratch, size_t(n)) : 0.f;
}

}  // namespace cb::icloth
