#include "render/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace cb::render {

namespace {
constexpr float kPitchLimit = 1.55f;  // rad, just short of straight up/down
}

void OrbitCamera::look_at(glm::vec3 eye, glm::vec3 target, float fov_deg) {
  target_ = target;
  glm::vec3 d = target - eye;
  distance_ = std::max(glm::length(d), 1e-3f);
  d /= distance_;
  pitch_ = std::asin(std::clamp(-d.y, -1.f, 1.f));
  yaw_ = std::atan2(d.x, -d.z);
  fov_deg_ = fov_deg;
}

glm::vec3 OrbitCamera::forward() const {
  return {std::cos(pitch_) * std::sin(yaw_), -std::sin(pitch_), -std::cos(pitch_) * std::cos(yaw_)};
}

glm::vec3 OrbitCamera::eye() const { return target_ - forward() * distance_; }

void OrbitCamera::orbit(float dx_px, float dy_px) {
  yaw_ += dx_px * 0.006f;
  pitch_ = std::clamp(pitch_ + dy_px * 0.006f, -kPitchLimit, kPitchLimit);
}

void OrbitCamera::pan(float dx_px, float dy_px, float height_px) {
  // metres per pixel at the target's depth
  float scale = 2.f * distance_ * std::tan(glm::radians(fov_deg_) * 0.5f) / std::max(height_px, 1.f);
  glm::vec3 f = forward();
  glm::vec3 right = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
  glm::vec3 up = glm::cross(right, f);
  target_ += (-dx_px * right + dy_px * up) * scale;
}

void OrbitCamera::zoom(float steps) { distance_ = std::clamp(distance_ * std::pow(0.88f, steps), 0.02f, 500.f); }

void OrbitCamera::frame(const Aabb& box) {
  if (box.empty()) return;
  Vec3f c = box.center(), e = box.extent();
  target_ = {c.x, c.y, c.z};
  float radius = std::max(0.5f * std::sqrt(e.x * e.x + e.y * e.y + e.z * e.z), 0.05f);
  distance_ = 1.15f * radius / std::sin(glm::radians(fov_deg_) * 0.5f);
}

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target_, glm::vec3(0, 1, 0)); }

glm::mat4 OrbitCamera::projection(float aspect) const {
  float near_plane = std::max(distance_ * 0.005f, 0.001f);
  return glm::perspective(glm::radians(fov_deg_), std::max(aspect, 1e-3f), near_plane, near_plane * 1e5f);
}

Ray OrbitCamera::ray(float x, float y, float width, float height) const {
  // from the camera basis rather than an inverted projection: no precision lost
  // to the near/far ratio
  float t = std::tan(glm::radians(fov_deg_) * 0.5f);
  float nx = (2.f * x / width - 1.f) * t * (width / height), ny = (1.f - 2.f * y / height) * t;
  glm::vec3 f = forward();
  glm::vec3 right = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
  glm::vec3 up = glm::cross(right, f);
  Ray r;
  r.origin = eye();
  r.dir = glm::normalize(f + right * nx + up * ny);
  return r;
}

bool OrbitCamera::project(glm::vec3 p, float width, float height, glm::vec3* out) const {
  glm::vec4 c = projection(width / height) * view() * glm::vec4(p, 1.f);
  if (c.w <= 0) return false;
  glm::vec3 ndc = glm::vec3(c) / c.w;
  *out = {(ndc.x + 1.f) * 0.5f * width, (1.f - ndc.y) * 0.5f * height, ndc.z};
  return true;
}

}  // namespace cb::render
