// Streamed debug geometry: points (sphere impostors, optional radius in m) and
// line segments, uploaded from host arrays each time they are drawn.
#pragma once

#include <vector>

#include <glm/glm.hpp>

#include "render/gl_objects.h"
#include "render/shader.h"
#include "sim/core/math.h"

namespace cb::render {

class OverlayDraw {
 public:
  /// Points with the points shader (uniforms other than u_color set by the caller).
  /// radii: empty, or (points) m with 0 = a dot of the shader's pixel size.
  void draw_points(const Shader& points, const std::vector<Vec3f>& p, const std::vector<float>& radii,
                   glm::vec4 color);
  /// Segments (pairs of endpoints) with the flat shader.
  void draw_lines(const Shader& flat, const std::vector<Vec3f>& endpoints, glm::vec4 color);

 private:
  void ensure();
  GlVertexArray vao_;
  GlBuffer pos_, radius_;
};

}  // namespace cb::render
