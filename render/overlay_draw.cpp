#include "render/overlay_draw.h"

namespace cb::render {

void OverlayDraw::ensure() {
  if (vao_.id()) return;
  pos_.allocate(GL_ARRAY_BUFFER, 1024, nullptr, GL_STREAM_DRAW);
  radius_.allocate(GL_ARRAY_BUFFER, 1024, nullptr, GL_STREAM_DRAW);
  vao_.create();
  vao_.attribute(0, pos_, 3);
  vao_.attribute(3, radius_, 1);
  glBindVertexArray(0);
}

void OverlayDraw::draw_points(const Shader& points, const std::vector<Vec3f>& p, const std::vector<float>& radii,
                              glm::vec4 color) {
  if (p.empty()) return;
  ensure();
  pos_.allocate(GL_ARRAY_BUFFER, p.size() * sizeof(Vec3f), p.data(), GL_STREAM_DRAW);
  std::vector<float> r = radii;
  r.resize(p.size(), 0.f);
  radius_.allocate(GL_ARRAY_BUFFER, r.size() * sizeof(float), r.data(), GL_STREAM_DRAW);
  points.set("u_color", color);
  points.set("u_use_radius", radii.empty() ? 0 : 1);
  vao_.bind();
  glDrawArrays(GL_POINTS, 0, GLsizei(p.size()));
  glBindVertexArray(0);
}

void OverlayDraw::draw_lines(const Shader& flat, const std::vector<Vec3f>& endpoints, glm::vec4 color) {
  if (endpoints.size() < 2) return;
  ensure();
  pos_.allocate(GL_ARRAY_BUFFER, endpoints.size() * sizeof(Vec3f), endpoints.data(), GL_STREAM_DRAW);
  flat.set("u_color", color);
  flat.set("u_model", glm::mat4(1.f));
  vao_.bind();
  glDrawArrays(GL_LINES, 0, GLsizei(endpoints.size() & ~size_t(1)));
  glBindVertexArray(0);
}

}  // namespace cb::render
