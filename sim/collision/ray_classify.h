// Classification rules of the ray-traced detector (Lehericey, Gouranton, Arnaldi,
// "GPU Ray-Traced Collision Detection for Cloth Simulation", VRST 2015), host and
// device. A ray leaves a vertex along +-its normal and hits a triangle with unit
// normal nf at distance s; the hit is re-projected on the triangle's normal,
// d = s |dot(dir, nf)|, before it is classified (an oblique ray overestimates the
// distance between the vertex and the surface). e is the cloth's half-thickness.
//
//  cloth -> volumetric (obstacle): a back-face hit (dot(dir, nf) > 0) means the
//    vertex is inside the object: collision, depth d + e, normal +nf (outwards).
//    A front-face hit: collision when d < e (depth e - d), prediction when
//    d < e + prediction margin (depth e - d <= 0: the gap), else rejected.
//  cloth -> cloth: contact distance e + e'; normal = nf oriented to the vertex's
//    side; collision when d < e + e', prediction when d < e + e' + margin.
//    Inversion: when the vertex was on the other side of the (previous) triangle
//    at the previous step and projected inside it, it went through: the normal
//    is flipped back to the previous side and the hit is a collision of depth d + e + e'.
//  volumetric -> cloth: a ray from an obstacle vertex into the object (against
//    its outward normal) that hits the cloth before half of the distance at which
//    it exits the object (D/2) finds cloth inside the object near that vertex:
//    collision, depth s + e, normal = the obstacle vertex's outward normal (the
//    direction the cloth must move). Beyond D/2 the opposite side is closer and
//    its own rays answer.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

enum RayContactClass : uint8_t { kRayNone = 0, kRayCollision = 1, kRayPrediction = 2 };
enum RayContactKind : uint8_t { kClothObstacle = 0, kClothCloth = 1, kObstacleCloth = 2 };

struct RayContact {
  int32_t vertex = -1;  ///< cloth vertex (cloth->obstacle, cloth->cloth) or obstacle vertex (obstacle->cloth)
  int32_t tri = -1;     ///< the triangle hit: obstacle triangle, or cloth triangle (cloth->cloth, obstacle->cloth)
  float w[3] = {0, 0, 0};  ///< barycentrics of the hit point on `tri`
  Vec3f normal;         ///< unit: direction in which the vertex must move to separate (obstacle->cloth:
                        ///< the direction in which the cloth triangle must move)
  float depth = 0;      ///< m: > 0 penetration to remove (collision), <= 0 the gap (prediction)
  uint8_t cls = kRayNone;   ///< RayContactClass
  uint8_t kind = kClothObstacle;  ///< RayContactKind
  uint8_t inverted = 0;     ///< 1 when found by the inversion rule
};

/// cloth -> volumetric rule; dir unit, nf unit face normal (outward), s hit distance.
CB_HD CB_INLINE void classify_cloth_obstacle(Vec3f dir, Vec3f nf, float s, float e, float margin, RayContact* c) {
  float cosang = dot(dir, nf);
  float d = s * (cosang < 0.f ? -cosang : cosang);
  c->normal = nf;
  c->kind = kClothObstacle;
  if (cosang > 0.f) {
    c->cls = kRayCollision;
    c->depth = d + e;
    return;
  }
  c->depth = e - d;
  c->cls = d < e ? kRayCollision : (d < e + margin ? kRayPrediction : kRayNone);
}

/// cloth -> cloth rule. side_now / side_prev: sign of the vertex's offset along nf
/// now and at the previous step (+1 / -1); projected_inside_prev: the previous
/// position projected inside the previous triangle. e2 = e + e'.
CB_HD CB_INLINE void classify_cloth_cloth(Vec3f dir, Vec3f nf, float s, float e2, float margin, int side_now,
                                          int side_prev, bool projected_inside_prev, RayContact* c) {
  float cosang = dot(dir, nf);
  float d = s * (cosang < 0.f ? -cosang : cosang);
  c->kind = kClothCloth;
  if (side_now != side_prev && projected_inside_prev) {
    c->inverted = 1;
    c->normal = nf * float(side_prev);
    c->depth = d + e2;
    c->cls = kRayCollision;
    return;
  }
  c->normal = nf * float(side_now);
  c->depth = e2 - d;
  c->cls = d < e2 ? kRayCollision : (d < e2 + margin ? kRayPrediction : kRayNone);
}

/// volumetric -> cloth rule: s = cloth hit distance along the inward ray, exit =
/// distance at which that ray leaves the object, n_out = the obstacle vertex's outward normal.
CB_HD CB_INLINE void classify_obstacle_cloth(Vec3f n_out, float s, float exit, float e, RayContact* c) {
  c->kind = kObstacleCloth;
  c->normal = n_out;
  c->depth = s + e;
  c->cls = s < 0.5f * exit ? kRayCollision : kRayNone;
}

}  // namespace cb
