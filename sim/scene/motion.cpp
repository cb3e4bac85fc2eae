#include "sim/scene/motion.h"

#include <cmath>

#include "sim/model/tri_mesh.h"

namespace cb {

Transform motion_transform(const Motion& m, double t) {
  Transform T;
  double tm = t > m.start_time ? t - m.start_time : 0.0;
  switch (m.kind) {
    case MotionKind::Oscillate:
      T.t = m.direction * float(m.amplitude * std::sin(2.0 * M_PI * tm / m.period));
      break;
    case MotionKind::Rotate:
      // rotate about the axis through the pivot: p' = R (p - c) + c
      T.R = rotation(m.axis, float(m.angular_velocity * tm));
      T.t = m.pivot - T.R * m.pivot;
      break;
    default:
      break;
  }
  return T;
}

void keyframe_positions(const Motion& m, double t, std::vector<Vec3f>& out) {
  const size_t nf = m.frames.size();
  out = nf ? m.frames[0] : std::vector<Vec3f>{};
  if (nf < 2) return;
  double tm = t > m.start_time ? t - m.start_time : 0.0;
  double f = tm / m.frame_time;
  double span = double(nf - 1);
  if (m.loop)
    f = std::fmod(f, span);
  else if (f > span)
    f = span;
  size_t i = size_t(f);
  if (i >= nf - 1) i = nf - 2;
  float s = float(f - double(i));
  const auto& a = m.frames[i];
  const auto& b = m.frames[i + 1];
  for (size_t v = 0; v < out.size(); ++v) out[v] = lerp(a[v], b[v], s);
}

static Transform compose(const Transform& outer, const Transform& inner) {
  Transform r;
  r.R = outer.R * inner.R;
  r.t = outer.R * inner.t + outer.t;
  return r;
}

Shape shape_at(const ObstacleSpec& o, double t) {
  Shape s;
  s.kind = o.kind == ObstacleKind::Sphere    ? ShapeKind::Sphere
           : o.kind == ObstacleKind::Box     ? ShapeKind::Box
           : o.kind == ObstacleKind::Capsule ? ShapeKind::Capsule
                                             : ShapeKind::Plane;
  s.pose = compose(motion_transform(o.motion, t), o.pose);
  s.radius = o.radius;
  s.half_length = o.half_length;
  s.half_extents = o.half_extents;
  s.friction = o.friction;
  return s;
}

void mesh_at(const ObstacleSpec& o, double t, std::vector<Vec3f>& out) {
  if (o.motion.kind == MotionKind::Keyframes)
    keyframe_positions(o.motion, t, out);
  else
    out = o.mesh.positions;
  Transform T = compose(motion_transform(o.motion, t), o.pose);
  transform_points(out, T, o.scale);
}

}  // namespace cb
