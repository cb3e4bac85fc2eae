// Obstacles on screen: analytic shapes as tessellated meshes placed by their
// current pose, planes as large grid squares, triangle-mesh obstacles as one
// dynamic mesh (re-uploaded when the scene's motions move it).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "render/gl_objects.h"
#include "render/shader.h"
#include "render/tessellate.h"
#include "sim/scene/obstacle_set.h"

namespace cb::render {

/// Column-major GL matrix of a rigid transform.
glm::mat4 to_mat4(const Transform& t);

struct GlMesh {
  GlVertexArray vao;
  GlBuffer pos, nrm, ebo;
  int count = 0;  ///< indices
  void upload(const TessMesh& m);
  void draw() const;
};

class ObstacleDraw {
 public:
  /// Builds meshes for the obstacles in `o` (call when the scene changes).
  void build(const ObstacleSet& o, float plane_half_size);
  /// Re-uploads mesh obstacles when they moved (mesh_version changed).
  void update(const ObstacleSet& o);
  /// Spheres, boxes, capsules and meshes with the surface shader (u_view_proj set).
  void draw_solids(const Shader& surface, const ObstacleSet& o) const;
  /// Planes with the ground shader (u_view_proj set).
  void draw_planes(const Shader& ground, const ObstacleSet& o) const;

 private:
  std::vector<GlMesh> shapes_;  ///< (nshapes)
  GlMesh meshes_;               ///< all mesh obstacles
  std::vector<Int3> mesh_tris_;
  uint64_t mesh_version_ = ~0ull;
};

}  // namespace cb::render
