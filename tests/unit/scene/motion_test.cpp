// Obstacle motions and analytic shape distances.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/scene/motion.h"
#include "sim/scene/shape.h"

namespace cb {
namespace {

TEST(Motion, OscillationAndRotation) {
  Motion m;
  m.kind = MotionKind::Oscillate;
  m.direction = {0, 0, 1};
  m.amplitude = 0.5f;
  m.period = 2.f;
  EXPECT_NEAR(motion_transform(m, 0.5).t.z, 0.5f, 1e-6f);  // quarter period: full amplitude
  EXPECT_NEAR(motion_transform(m, 1.0).t.z, 0.f, 1e-6f);
  Motion r;
  r.kind = MotionKind::Rotate;
  r.axis = {0, 1, 0};
  r.pivot = {1, 0, 0};
  r.angular_velocity = float(M_PI);  // half a turn per second
  Vec3f p = motion_transform(r, 1.0).apply({2, 0, 0});
  EXPECT_NEAR(p.x, 0.f, 1e-5f);  // (2,0,0) rotated by pi about the axis through (1,0,0)
  EXPECT_NEAR(p.z, 0.f, 1e-5f);
}

TEST(Motion, KeyframesInterpolateAndLoop) {
  Motion m;
  m.kind = MotionKind::Keyframes;
  m.frames = {{{0, 0, 0}}, {{1, 0, 0}}, {{1, 2, 0}}};
  m.frame_time = 0.5f;
  std::vector<Vec3f> out;
  keyframe_positions(m, 0.25, out);
  EXPECT_NEAR(out[0].x, 0.5f, 1e-6f);
  keyframe_positions(m, 0.75, out);
  EXPECT_NEAR(out[0].y, 1.0f, 1e-6f);
  keyframe_positions(m, 1.25, out);  // looped: 1.25 s = 0.25 s into the cycle of 1 s
  EXPECT_NEAR(out[0].x, 0.5f, 1e-6f);
  m.loop = false;
  keyframe_positions(m, 5.0, out);  // held at the last frame
  EXPECT_EQ(out[0], (Vec3f{1, 2, 0}));
}

TEST(Shape, SignedDistancesAndNormals) {
  Shape s;
  s.kind = ShapeKind::Sphere;
  s.radius = 0.5f;
  s.pose.t = {0, 1, 0};
  Vec3f n;
  EXPECT_NEAR(shape_distance(s, {0, 2, 0}, &n), 0.5f, 1e-6f);
  EXPECT_NEAR(n.y, 1.f, 1e-6f);
  EXPECT_NEAR(shape_distance(s, {0, 1.25f, 0}, &n), -0.25f, 1e-6f);

  Shape b;
  b.kind = ShapeKind::Box;
  b.half_extents = {1, 0.5f, 0.25f};
  EXPECT_NEAR(shape_distance(b, {0, 0, 1.25f}, &n), 1.f, 1e-6f);
  EXPECT_NEAR(n.z, 1.f, 1e-6f);
  EXPECT_NEAR(shape_distance(b, {0, 0.4f, 0}, &n), -0.1f, 1e-6f);  // inside: nearest face is +y
  EXPECT_NEAR(n.y, 1.f, 1e-6f);
  EXPECT_NEAR(shape_distance(b, {2, 1.5f, 0}, &n), std::sqrt(2.f), 1e-6f);  // corner region

  Shape c;
  c.kind = ShapeKind::Capsule;
  c.radius = 0.1f;
  c.half_length = 1.f;
  EXPECT_NEAR(shape_distance(c, {0.5f, 0.3f, 0}, &n), 0.4f, 1e-6f);
  EXPECT_NEAR(shape_distance(c, {0, 1.5f, 0}, &n), 0.4f, 1e-6f);

  Shape p;  // ground plane rotated by 90 degrees about z: normal -x
  p.pose.R = rotation({0, 0, 1}, float(M_PI / 2));
  EXPECT_NEAR(shape_distance(p, {-2, 0, 0}, &n), 2.f, 1e-5f);
  EXPECT_NEAR(n.x, -1.f, 1e-5f);
}

TEST(Shape, PointVelocityOfARotatingShape) {
  Shape now, prev;
  now.kind = prev.kind = ShapeKind::Sphere;
  float w = 2.f, dt = 1e-3f;
  now.pose.R = rotation({0, 1, 0}, w * dt);
  Vec3f v = shape_point_velocity(now, prev, {1, 0, 0}, dt);
  EXPECT_NEAR(v.z, -w, 1e-2f);  // right-handed rotation about +y moves +x towards -z
  EXPECT_NEAR(v.x, 0.f, 1e-2f);
}

}  // namespace
}  // namespace cb
