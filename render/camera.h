// Orbit camera: a target point, a distance and two angles, like common 3D tools
// (right-drag orbits, middle-drag pans, the wheel zooms, F frames everything).
#pragma once

#include <glm/glm.hpp>

#include "sim/core/math.h"

namespace cb::render {

/// A ray in world space: origin (m) and unit direction.
struct Ray {
  glm::vec3 origin{0.f};
  glm::vec3 dir{0.f, 0.f, -1.f};
};

class OrbitCamera {
 public:
  /// Places the camera at `eye` looking at `target` (m), vertical field of view in degrees.
  void look_at(glm::vec3 eye, glm::vec3 target, float fov_deg);
  /// Rotates about the target by pixel deltas (right-drag).
  void orbit(float dx_px, float dy_px);
  /// Moves target and eye in the view plane by pixel deltas (middle-drag);
  /// `height_px` is the viewport height, so the point under the cursor follows it.
  void pan(float dx_px, float dy_px, float height_px);
  /// Wheel: positive steps move closer.
  void zoom(float steps);
  /// Frames the box (m) so that all of it is visible.
  void frame(const Aabb& box);

  glm::vec3 eye() const;
  glm::vec3 target() const { return target_; }
  glm::vec3 forward() const;  ///< unit, from eye to target
  float fov_deg() const { return fov_deg_; }
  float distance() const { return distance_; }
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;

  /// The ray through pixel (x, y) of a width x height viewport (y down, pixel centres at +0.5).
  Ray ray(float x, float y, float width, float height) const;
  /// Window pixel of a world point (y down); z = NDC depth; returns false behind the eye.
  bool project(glm::vec3 p, float width, float height, glm::vec3* out) const;

 private:
  glm::vec3 target_{0.f, 0.5f, 0.f};
  float distance_ = 3.f;   ///< m
  float yaw_ = 0.f;        ///< rad, about +y; 0 looks along -z
  float pitch_ = 0.2f;     ///< rad, positive looks down
  float fov_deg_ = 45.f;
};

}  // namespace cb::render
